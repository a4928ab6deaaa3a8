/**
 * Waiting in tests and benchmarks: `waitFor` polls a condition until it holds and names what it
 * waited for when it gives up. A plain pause is Node's own promise timer, imported as
 * `import { setTimeout as sleep } from "node:timers/promises"` (no copy of it here).
 */
import { setTimeout as sleep } from "node:timers/promises";

/** A process whose early exit ends a wait at once (the harness's Service is one). */
export interface Watched {
  readonly name: string;
  readonly running: boolean;
  describeExit(): string;
  tail(): string;
}

export interface WaitOptions {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
  /** Processes that must keep running meanwhile: one that exits fails the wait with its log tail. */
  readonly alive?: readonly Watched[];
  /** More to say when the wait times out (a log tail, the output so far). */
  readonly context?: () => string;
}

/**
 * Polls `check` until it returns a value other than undefined/false and returns that value; an
 * error thrown by `check` counts as "not yet" (a server still starting refuses connections).
 * Throws after `timeoutMs`, with the last error.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 60_000, intervalMs = 150, alive = [], context }: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    for (const service of alive) {
      if (!service.running)
        throw new Error(`${service.name} ${service.describeExit()} while waiting for ${what}\n${service.tail()}`);
    }
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    await sleep(intervalMs);
  }
  const detail = lastError ? ` (last error: ${(lastError as Error).message})` : "";
  const more = context ? `\n${context()}` : "";
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}${more}`);
}
