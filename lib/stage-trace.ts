import { AsyncLocalStorage } from "node:async_hooks";
import { monitorEventLoopDelay } from "node:perf_hooks";

/**
 * Per-stage timing of the signed writes, for `npm run bench:writes` (WRITES_TRACE=1; off, every
 * call here is a no-op). Each write prints one line `writes-trace {json}` on stderr with its
 * spans (name, start and end in ms from the request's arrival); every 2 s the event loop's delay
 * is printed too (`writes-loop`), since the writes share their thread with Ponder's indexing.
 * A span is a stage's wall time, waits for the event loop included.
 */

const enabled = process.env.WRITES_TRACE === "1" || process.env.WRITES_TRACE === "true";

interface Trace {
  readonly t0: number;
  readonly spans: [string, number, number][];
}

const store = new AsyncLocalStorage<Trace>();

if (enabled) {
  // Sampled by a 5 ms timer: what is printed is how late it fired (an idle loop prints about 0).
  const RESOLUTION_MS = 5;
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  setInterval(() => {
    if (delay.count === 0) return;
    const ms = (ns: number) => Math.max(0, Math.round(ns / 1e4) / 100 - RESOLUTION_MS);
    console.error(
      `writes-loop ${JSON.stringify({ p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max), mean: ms(delay.mean) })}`,
    );
    delay.reset();
  }, 2_000).unref();
}

/** Runs `task` as one traced request, printing its spans when it ends. */
export function traceRequest<T>(name: string, task: () => Promise<T>): Promise<T> {
  if (!enabled) return task();
  const trace: Trace = { t0: performance.now(), spans: [] };
  return store.run(trace, async () => {
    try {
      return await task();
    } finally {
      const end = performance.now() - trace.t0;
      const spans = trace.spans.map(([n, s, e]) => [n, round(s), round(e)]);
      console.error(
        `writes-trace ${JSON.stringify({ name, at: round(performance.timeOrigin + trace.t0), total: round(end), spans })}`,
      );
    }
  });
}

/** Times `task` as a span of the current request (if any). */
export async function span<T>(name: string, task: () => Promise<T>): Promise<T> {
  const trace = enabled ? store.getStore() : undefined;
  if (!trace) return task();
  const start = performance.now() - trace.t0;
  try {
    return await task();
  } finally {
    trace.spans.push([name, start, performance.now() - trace.t0]);
  }
}

/** A mark: a span of no length, or from `since` (a time from now()) to now. */
export function mark(name: string, since?: number): void {
  const trace = enabled ? store.getStore() : undefined;
  if (!trace) return;
  const t = performance.now() - trace.t0;
  trace.spans.push([name, since === undefined ? t : since - trace.t0, t]);
}

/** performance.now(), for mark(name, since). */
export const now = () => performance.now();

const round = (ms: number) => Math.round(ms * 10) / 10;
