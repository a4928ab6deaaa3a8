/**
 * A stand-in for api/writes/thread/entry.ts, for api/writes/thread/start.test.ts: it speaks the same messages, and
 * the spawn body's symbol says what to do (answer, answer late, refuse, fail, die or never answer).
 */
import { parentPort, workerData } from "node:worker_threads";
import type { ThreadCall, ThreadMessage } from "../../api/writes/thread/protocol.ts";

const port = parentPort!;
const post = (message: ThreadMessage) => port.postMessage(message);
const { notReady } = workerData as { notReady?: string };

post({ kind: "state", notReady });
post({ kind: "started" });

port.on("message", async (message: ThreadCall | "close") => {
  if (message === "close") {
    post({ kind: "closed" });
    return;
  }
  const symbol = message.method === "spawn" ? message.request.body.symbol : "ECHO";
  const answer = { status: 201, body: { method: message.method, request: message.request } };
  if (symbol === "ECHO") post({ kind: "answer", id: message.id, answer });
  else if (symbol === "LATE") setTimeout(() => post({ kind: "answer", id: message.id, answer }), 300);
  else if (symbol === "TAKEN")
    post({
      kind: "answer",
      id: message.id,
      error: { status: 400, code: "SYMBOL_TAKEN", message: "TAKEN exists", headers: { "X-Why": "test" } },
    });
  else if (symbol === "BUG") post({ kind: "answer", id: message.id, error: { message: "Error: a bug" } });
  else if (symbol === "DIE") process.exit(3);
  // HANG: never answers.
});
