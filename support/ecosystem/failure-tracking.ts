import { it } from "vitest";

/**
 * `test`: vitest's `it` that notes a failure in `run.failed` (a hook's catch may set it too), so a
 * suite prints its services' logs at the end only when something failed.
 */
export function failureTracking() {
  const run = { failed: false };
  const test = (name: string, fn: () => Promise<void>) =>
    it(name, async () => {
      try {
        await fn();
      } catch (error) {
        run.failed = true;
        throw error;
      }
    });
  return { test, run };
}
