/**
 * Waiting in tests and benchmarks: `waitFor` polls a condition until it holds and names what it
 * waited for when it gives up (lib/wait.ts), failing at once when a process it watches exits. A
 * plain pause is Node's own promise timer, imported as
 * `import { setTimeout as sleep } from "node:timers/promises"` (no copy of it here).
 */
import { type PollOptions, waitFor as poll } from "../lib/wait.ts";

/** A process whose early exit ends a wait at once (the harness's Service is one). */
export interface Watched {
  readonly name: string;
  readonly running: boolean;
  describeExit(): string;
  tail(): string;
}

export interface WaitOptions extends Omit<PollOptions, "stopIf"> {
  /** Processes that must keep running meanwhile: one that exits fails the wait with its log tail. */
  readonly alive?: readonly Watched[];
}

/**
 * Polls `check` until it returns a value other than undefined/false and returns that value; an
 * error thrown by `check` counts as "not yet" (a server still starting refuses connections).
 * Throws after `timeoutMs`, with the last error, or as soon as a process of `alive` exits.
 */
export function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  { alive = [], ...options }: WaitOptions = {},
): Promise<T> {
  return poll(what, check, {
    ...options,
    stopIf: () => {
      for (const service of alive) {
        if (!service.running)
          throw new Error(`${service.name} ${service.describeExit()} while waiting for ${what}\n${service.tail()}`);
      }
    },
  });
}
