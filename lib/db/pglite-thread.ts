/**
 * The thread side of an embedded database opened by sql.ts: PGlite runs its WebAssembly
 * Postgres synchronously, so on the main thread every statement would stall the event loop, and
 * with it the broadcasts queued behind one another. Here it stalls only this thread.
 *
 * Node loads it directly as the thread's entry (new Worker): it imports only pglite.ts (erasable TypeScript, PGlite alone).
 */
import { parentPort, workerData } from "node:worker_threads";
import { openPgliteHere } from "./pglite.ts";

interface Request {
  readonly id: number;
  readonly text: string;
  readonly params: unknown[];
}

const { dataDir, schema } = workerData as { dataDir: string; schema: string };
const port = parentPort!;

try {
  const db = await openPgliteHere(dataDir, schema);
  // Statements run one at a time, in the order they arrive (PGlite queues them itself).
  port.on("message", async (message: Request | "close") => {
    if (message === "close") {
      await db.close().catch(() => {});
      port.postMessage({ closed: true });
      return;
    }
    try {
      const result = await db.query(message.text, message.params);
      port.postMessage({ id: message.id, rows: result.rows });
    } catch (error) {
      const e = error as { message?: string; code?: string; detail?: string };
      port.postMessage({
        id: message.id,
        error: { message: String(e?.message ?? error), code: e?.code, detail: e?.detail },
      });
    }
  });
  port.postMessage({ ready: true });
} catch (error) {
  port.postMessage({ failed: String((error as Error)?.message ?? error) });
}
