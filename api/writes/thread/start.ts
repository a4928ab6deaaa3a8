import { Worker as NodeThread } from "node:worker_threads";
import { UnavailableError } from "../../../lib/unavailable.ts";
import type { WriteOperations } from "../service.ts";
import { rejection, SIGNED_WRITES, type WriteOutcome } from "../outcome.ts";
import { exchangeClientOf, type StartedWrites, type WritesConfig } from "../start.ts";
import type { ThreadCall, ThreadError, ThreadMessage } from "./protocol.ts";

/**
 * The relayed writes on a Node thread of their own (entry.ts runs startWrites there).
 * On the embedded database the indexer's blocks run on the API's thread (Ponder and PGlite share
 * it), and a write's own work (signing, RPC answers, receipts) queued behind them: bench:writes
 * measured the API at 0.44x the direct path's votes/s with both on one thread. Here only the HTTP
 * layer (validation, the signature check through the exchange) stays on the API's thread.
 *
 * Nothing is lost if the thread dies: its calls in flight are rejected WRITE_PENDING (the write
 * may have gone through; a retry with the same Idempotency-Key answers as it did), and a new
 * thread's journal reconciles what was open. Calls refused before they cross (not ready, too many
 * waiting) throw UnavailableError: nothing was done.
 */

export interface WritesThreadOptions {
  /** Calls waiting for the thread before more are refused as unavailable (each is an HTTP request in flight). */
  readonly maxPending?: number;
  /** A call not answered by then is rejected WRITE_PENDING (its write goes on; the journal keeps its outcome). */
  readonly callTimeoutMs?: number;
  /** The thread's module (tests run the bridge against a stand-in); entry.ts by default. */
  readonly entry?: URL;
}

type Pending = { resolve: (outcome: WriteOutcome) => void; reject: (error: Error) => void; timer: NodeJS.Timeout };

const FIRST_RESTART_DELAY_MS = 500;
const MAX_RESTART_DELAY_MS = 15_000;
const CLOSE_TIMEOUT_MS = 10_000;

export function startWritesThread(config: WritesConfig, options: WritesThreadOptions = {}): StartedWrites {
  const log = config.log ?? ((message: string, error?: unknown) => console.error(message, error ?? ""));
  const maxPending = options.maxPending ?? 2048;
  const callTimeoutMs = options.callTimeoutMs ?? config.receiptTimeoutMs * 2 + 60_000;
  // Functions do not cross to a thread; the thread logs to this process's stderr itself.
  const { log: _log, onState: _onState, ...threadData } = config;
  // The signature check stays here, before anything crosses to the thread.
  const exchange = exchangeClientOf(config);

  let running: NodeThread | undefined;
  let notReady: string | undefined = "signed writes are starting";
  let closed = false;
  let nextId = 1;
  let restartDelay = FIRST_RESTART_DELAY_MS;
  let restartTimer: NodeJS.Timeout | undefined;
  let onClosed: (() => void) | undefined;
  const pending = new Map<number, Pending>();
  let started!: () => void;
  const ready = new Promise<void>((resolve) => {
    started = resolve;
  });

  /** Refused before anything crosses to the thread: nothing was done. */
  const unavailable = () => new UnavailableError(SIGNED_WRITES, notReady ?? "signed writes are restarting");
  /** The outcome of a call cut off while its write ran is not known here: pending, not unavailable. */
  const inDoubt = (why: string) =>
    rejection(
      "WRITE_PENDING",
      `${why}; the write may still complete: retry with the same Idempotency-Key for its answer (without one, look for it in the read API before sending it again)`,
    );
  const failAll = (why: string) => {
    for (const call of pending.values()) {
      clearTimeout(call.timer);
      call.resolve(inDoubt(why));
    }
    pending.clear();
  };

  const onMessage = (message: ThreadMessage) => {
    if (message.kind === "state") {
      if (closed) return;
      notReady = message.notReady;
      if (notReady === undefined) restartDelay = FIRST_RESTART_DELAY_MS;
    } else if (message.kind === "started") started();
    else if (message.kind === "closed") onClosed?.();
    else {
      const call = pending.get(message.id);
      if (call === undefined) return; // timed out already
      pending.delete(message.id);
      clearTimeout(call.timer);
      if (message.error) call.reject(errorOf(message.error));
      else call.resolve(message.outcome!);
    }
  };

  const scheduleRestart = () => {
    log(`writes thread: restarting in ${restartDelay} ms`);
    restartTimer = setTimeout(spawnThread, restartDelay);
    restartTimer.unref();
    restartDelay = Math.min(restartDelay * 2, MAX_RESTART_DELAY_MS);
  };

  function spawnThread() {
    restartTimer = undefined;
    if (closed) return;
    let thread: NodeThread;
    try {
      thread = new NodeThread(options.entry ?? new URL("./entry.ts", import.meta.url), { workerData: threadData });
    } catch (error) {
      log("writes thread: could not start", error);
      scheduleRestart();
      return;
    }
    running = thread;
    thread.on("message", onMessage);
    thread.on("error", (error) => log("writes thread: failed", error));
    thread.on("exit", (code) => {
      running = undefined;
      if (!closed) notReady = "signed writes are restarting";
      failAll("the signed writes' thread stopped while this write was running");
      onClosed?.();
      if (closed) return;
      log(`writes thread: exited with code ${code}`);
      scheduleRestart();
    });
  }
  spawnThread();

  const call = (message: Omit<ThreadCall, "id">): Promise<WriteOutcome> => {
    const thread = running;
    if (thread === undefined || notReady !== undefined) return Promise.reject(unavailable());
    if (pending.size >= maxPending)
      return Promise.reject(
        new UnavailableError(SIGNED_WRITES, "too many signed writes in flight; retry shortly", {
          retryAfterSeconds: 1,
        }),
      );
    const id = nextId++;
    return new Promise<WriteOutcome>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve(inDoubt(`the write did not finish within ${callTimeoutMs} ms`));
      }, callTimeoutMs);
      pending.set(id, { resolve, reject, timer });
      try {
        thread.postMessage({ ...message, id } as ThreadCall);
      } catch (error) {
        // Not sent (a value that cannot cross): nothing was done.
        pending.delete(id);
        clearTimeout(timer);
        reject(error);
      }
    });
  };

  const operations: WriteOperations = {
    spawn: (request) => call({ method: "spawn", request }),
    vote: (request) => call({ method: "vote", request }),
    propose: (request) => call({ method: "propose", request }),
    setOperator: (request) => call({ method: "setOperator", request }),
  };

  return {
    ready,
    service: () => {
      if (notReady !== undefined || running === undefined) throw unavailable();
      return operations;
    },
    exchange: () => {
      if (exchange === undefined)
        throw new UnavailableError(SIGNED_WRITES, notReady ?? "signed writes are not configured");
      return exchange;
    },
    async close() {
      if (closed) return;
      closed = true;
      notReady = "signed writes are closing";
      if (restartTimer) clearTimeout(restartTimer);
      started(); // a caller awaiting readiness stops waiting
      const thread = running;
      if (thread === undefined) return;
      const done = new Promise<void>((resolve) => {
        onClosed = resolve;
        setTimeout(resolve, CLOSE_TIMEOUT_MS).unref();
      });
      thread.postMessage("close");
      await done;
      await thread.terminate();
    },
  };
}

function errorOf(error: ThreadError): Error {
  if (error.unavailable !== undefined)
    return new UnavailableError(error.unavailable.dependency, error.message, {
      retryAfterSeconds: error.unavailable.retryAfterSeconds,
    });
  return new Error(`writes thread: ${error.message}`);
}
