import { setTimeout as sleep } from "node:timers/promises";

/**
 * Polling until something holds: `npm start` waits for its services with it, tests and
 * benchmarks through support/wait.ts (which adds processes that must stay up meanwhile).
 */

export interface PollOptions {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
  /** Runs before each try; what it throws ends the wait at once (a process that exited). */
  readonly stopIf?: () => void;
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
  { timeoutMs = 60_000, intervalMs = 150, stopIf, context }: PollOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    stopIf?.();
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
