/**
 * The thread side of the relayed writes (start.ts is the API's side): the service, its relayer, chain
 * client and journal run here, so their CPU (signing, RPC answers, receipts) never queues behind
 * the indexer on the API's thread. Messages in: a call or "close"; out: states, outcomes, "closed".
 */
import { parentPort, workerData as threadData } from "node:worker_threads";
import { traceRequest } from "../../../lib/stage-trace.ts";
import { UnavailableError } from "../../../lib/unavailable.ts";
import { startWrites, type WritesConfig } from "../start.ts";
import type { ThreadCall, ThreadMessage } from "./protocol.ts";

const port = parentPort!;
const post = (message: ThreadMessage) => port.postMessage(message);

const writes = startWrites({
  ...(threadData as WritesConfig),
  // This thread does little but wait: the journal's statements can run on it.
  embeddedJournal: "here",
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
    // WRITES_TRACE: the request's trace (signed.ts) stays on the API's thread; this thread's
    // stages are a trace of their own, named after the call.
    const outcome = await traceRequest(`thread ${message.method}`, () =>
      message.method === "spawn"
        ? service.spawn(message.request)
        : message.method === "vote"
          ? service.vote(message.request)
          : message.method === "propose"
            ? service.propose(message.request)
            : service.setOperator(message.request),
    );
    post({ kind: "answer", id: message.id, outcome });
  } catch (error) {
    post({
      kind: "answer",
      id: message.id,
      error:
        error instanceof UnavailableError
          ? {
              message: error.message,
              unavailable: { dependency: error.dependency, retryAfterSeconds: error.retryAfterSeconds },
            }
          : { message: String((error as Error)?.stack ?? error) },
    });
  }
});
