import { Worker } from "node:worker_threads";
import { withDeadline } from "../deadline.ts";

/**
 * Embedded PGlite on a Node thread of its own (pglite-thread.ts), as one connection: statements
 * run one at a time in the order sent, and a transaction holds the connection until it ends.
 * The caller's event loop only posts messages: a statement's cost never stalls it.
 */
export interface PgliteThread {
  query<R>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (query: <R>(text: string, params?: readonly unknown[]) => Promise<R[]>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface PgliteThreadOptions {
  readonly dataDir: string;
  readonly schema: string;
  /** Most ms a statement may take before it fails with `down`. */
  readonly timeoutMs: number;
  /** The database as away (its thread gone, no answer in time): the caller's UnavailableError. */
  readonly down: (reason: unknown) => Error;
}

type ThreadMessage =
  | { ready: true }
  | { failed: string }
  | { closed: true }
  | { id: number; rows: unknown[]; error?: undefined }
  | { id: number; rows?: undefined; error: { message: string; code?: string; detail?: string } };

const noAnswer = (ms: number) => `no answer in ${ms} ms`;

export async function openPgliteThread({
  dataDir,
  schema,
  timeoutMs,
  down,
}: PgliteThreadOptions): Promise<PgliteThread> {
  const thread = new Worker(new URL("./pglite-thread.ts", import.meta.url), { workerData: { dataDir, schema } });
  const waiting = new Map<number, { resolve: (rows: unknown[]) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let failure: Error | undefined;
  let onClosed: (() => void) | undefined;
  const failAll = (error: Error) => {
    failure = error;
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
  };
  const ready = new Promise<void>((resolve, reject) => {
    thread.on("message", (message: ThreadMessage) => {
      if ("ready" in message) resolve();
      else if ("failed" in message) reject(down(message.failed));
      else if ("closed" in message) onClosed?.();
      else {
        const call = waiting.get(message.id);
        waiting.delete(message.id);
        // A statement's own error keeps its SQLSTATE (code): it is the caller's to read.
        if (message.error) call?.reject(Object.assign(new Error(message.error.message), message.error));
        else call?.resolve(message.rows);
      }
    });
    thread.on("error", (error) => {
      const failed = down(error);
      reject(failed);
      failAll(failed);
    });
    thread.on("exit", () => failAll(down("its thread exited")));
  });
  const openMs = Math.max(timeoutMs, 30_000);
  await withDeadline(ready, openMs, () => down(noAnswer(openMs))).catch(async (error) => {
    await thread.terminate();
    throw error;
  });

  const send = <R>(message: Record<string, unknown>, id = nextId++): Promise<R[]> => {
    if (failure) return Promise.reject(failure);
    const answer = new Promise<R[]>((resolve, reject) =>
      waiting.set(id, { resolve: resolve as (rows: unknown[]) => void, reject }),
    );
    thread.postMessage({ ...message, id });
    return withDeadline(answer, timeoutMs, () => down(noAnswer(timeoutMs))).finally(() => waiting.delete(id));
  };
  const query = <R>(text: string, params: readonly unknown[] = [], tx?: number) => send<R>({ text, params, tx });

  return {
    query: (text, params) => query(text, params),
    async transaction(fn) {
      const tx = nextId++;
      try {
        await send({ begin: true }, tx);
      } catch (error) {
        // Its begin may still open the transaction later: the thread then rolls it back at once.
        await send({ end: tx, commit: false }).catch(() => {});
        throw error;
      }
      let result: Awaited<ReturnType<typeof fn>>;
      try {
        result = await fn((text, params) => query(text, params, tx));
      } catch (error) {
        await send({ end: tx, commit: false }).catch(() => {});
        throw error;
      }
      await send({ end: tx, commit: true });
      return result;
    },
    async close() {
      if (failure) return;
      const closed = new Promise<void>((resolve) => (onClosed = resolve));
      thread.postMessage("close");
      await withDeadline(closed, timeoutMs, () => down(noAnswer(timeoutMs))).catch(() => {});
      await thread.terminate();
    },
  };
}
