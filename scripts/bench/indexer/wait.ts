/** Polls `check` until it resolves true; errors thrown by `check` count as "not yet". */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  { timeoutMs = 120_000, intervalMs = 250 } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
