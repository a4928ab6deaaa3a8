/**
 * The thread side of an embedded database opened by pglite-client.ts: PGlite runs its WebAssembly
 * Postgres synchronously, so on the main thread every statement would stall the event loop, and
 * with it matching, answers and the broadcasts queued behind one another. Here it stalls only
 * this thread.
 *
 * A transaction is opened by `begin`, takes statements that name it, and ends with `end`
 * (commit or roll back). PGlite holds every other statement until it ends, as on one connection.
 *
 * Node loads it directly as the thread's entry (new Worker): it imports only pglite.ts (erasable TypeScript, PGlite alone).
 */
import { parentPort, workerData } from "node:worker_threads";
import type { Transaction } from "@electric-sql/pglite";
import { openPgliteHere } from "./pglite.ts";

type Request =
  | { readonly id: number; readonly text: string; readonly params: unknown[]; readonly tx?: number }
  | { readonly id: number; readonly begin: true }
  | { readonly id: number; readonly end: number; readonly commit: boolean };

const { dataDir, schema } = workerData as { dataDir: string; schema: string };
const port = parentPort!;
/** Open transactions: their connection, and how to end them. */
const open = new Map<number, { tx: Transaction; end: (commit: boolean) => void; done: Promise<void> }>();
const ROLLBACK = Symbol("rollback");
/** Transactions ended (rolled back) before they began: their caller gave up waiting. */
const abandoned = new Set<number>();

const failure = (error: unknown) => {
  const e = error as { message?: string; code?: string; detail?: string };
  return { message: String(e?.message ?? error), code: e?.code, detail: e?.detail };
};

try {
  const db = await openPgliteHere(dataDir, schema);
  port.on("message", async (message: Request | "close") => {
    if (message === "close") {
      await db.close().catch(() => {});
      port.postMessage({ closed: true });
      return;
    }
    if ("begin" in message) {
      // Answered once the transaction holds the connection; its end answers the `end` message.
      let began = false;
      const done = db.transaction(async (tx) => {
        if (abandoned.delete(message.id)) throw ROLLBACK;
        const commit = await new Promise<boolean>((end) => {
          open.set(message.id, { tx, end, done });
          began = true;
          port.postMessage({ id: message.id, rows: [] });
        });
        if (!commit) throw ROLLBACK;
      });
      done.catch((error) => {
        if (!began) port.postMessage({ id: message.id, error: failure(error) });
      });
      return;
    }
    if ("end" in message) {
      const transaction = open.get(message.end);
      open.delete(message.end);
      if (!transaction) {
        // Not begun yet (its caller timed out waiting): it rolls back as soon as it begins.
        if (!message.commit) abandoned.add(message.end);
        port.postMessage(
          message.commit
            ? { id: message.id, error: { message: `no open transaction ${message.end}` } }
            : { id: message.id, rows: [] },
        );
        return;
      }
      transaction.end(message.commit);
      try {
        await transaction.done;
        port.postMessage({ id: message.id, rows: [] });
      } catch (error) {
        if (error === ROLLBACK) port.postMessage({ id: message.id, rows: [] });
        else port.postMessage({ id: message.id, error: failure(error) });
      }
      return;
    }
    try {
      const on = message.tx === undefined ? db : open.get(message.tx)?.tx;
      if (!on) throw new Error(`no open transaction ${message.tx}`);
      const result = await on.query(message.text, message.params);
      port.postMessage({ id: message.id, rows: result.rows });
    } catch (error) {
      port.postMessage({ id: message.id, error: failure(error) });
    }
  });
  port.postMessage({ ready: true });
} catch (error) {
  port.postMessage({ failed: String((error as Error)?.message ?? error) });
}
