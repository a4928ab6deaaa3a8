/**
 * A stand-in for api/writes/thread/entry.ts, for api/writes/thread/start.test.ts: it speaks the same messages, and
 * the spawn body's symbol says what to do (answer, answer late, reject, be unavailable, fail, die or never answer).
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
  const outcome = { ok: true, value: { method: message.method, request: message.request } } as const;
  if (symbol === "ECHO") post({ kind: "answer", id: message.id, outcome });
  else if (symbol === "LATE") setTimeout(() => post({ kind: "answer", id: message.id, outcome }), 300);
  else if (symbol === "TAKEN")
    post({ kind: "answer", id: message.id, outcome: { ok: false, code: "SYMBOL_TAKEN", message: "TAKEN exists" } });
  else if (symbol === "AWAY")
    post({
      kind: "answer",
      id: message.id,
      error: { message: "the exchange is away", unavailable: { dependency: "exchange", retryAfterSeconds: 2 } },
    });
  else if (symbol === "BUG") post({ kind: "answer", id: message.id, error: { message: "Error: a bug" } });
  else if (symbol === "DIE") process.exit(3);
  // HANG: never answers.
});
