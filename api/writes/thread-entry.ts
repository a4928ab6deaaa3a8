/**
 * The worker-thread side of the relayed writes (thread.ts): the service, its relayer, chain
 * client and journal run here, so their CPU (signing, RPC answers, receipts) never queues behind
 * the indexer on the API's thread. Messages in: a call or "close"; out: states, answers, "closed".
 */
import { parentPort, workerData } from "node:worker_threads";
import { ApiError } from "../../lib/http/index.ts";
import { startWrites, type WritesConfig } from "./start.ts";
import type { ThreadCall, ThreadMessage } from "./thread-protocol.ts";

const port = parentPort!;
const post = (message: ThreadMessage) => port.postMessage(message);

const writes = startWrites({
  ...(workerData as WritesConfig),
  onState: (notReady) => post({ kind: "state", notReady }),
});
void writes.ready.then(() => post({ kind: "started" }));

port.on("message", async (message: ThreadCall | "close") => {
  if (message === "close") {
    await writes.close();
    post({ kind: "closed" });
    return;
  }
  try {
    const service = writes.service();
    const answer =
      message.method === "spawn"
        ? await service.spawn(message.request)
        : message.method === "vote"
          ? await service.vote(message.request)
          : await service.propose(message.request);
    post({ kind: "answer", id: message.id, answer });
  } catch (error) {
    post({
      kind: "answer",
      id: message.id,
      error:
        error instanceof ApiError
          ? { status: error.status, code: error.code, message: error.message, headers: { ...error.headers } }
          : { message: String((error as Error)?.stack ?? error) },
    });
  }
});
