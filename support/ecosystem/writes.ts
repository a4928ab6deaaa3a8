import type { Answer, Credentials, SigningClient } from "../exchange/signing-client.ts";
import { waitFor } from "../wait.ts";

const lastStamp = new Map<string, number>();

/**
 * The API-Timestamp of a write by `who`: now, strictly increasing per key, so two equal writes of
 * one millisecond never share a signature (the second would be a replay). It stays at the clock
 * (the exchange accepts at most SIGNATURE_MAX_FUTURE_MS ahead) while a key signs under 1,000/s.
 */
export function writeStamp(who: Credentials): number {
  const stamp = Math.max(Date.now(), (lastStamp.get(who.publicKey) ?? 0) + 1);
  lastStamp.set(who.publicKey, stamp);
  return stamp;
}

/** A signed ecosystem write as the API takes it: POST, signed with API-Timestamp (required). */
export function signedWrite<T = any>(
  api: SigningClient,
  who: Credentials,
  path: string,
  body?: string | object,
  options: Parameters<SigningClient["signed"]>[4] = {},
): Promise<Answer<T>> {
  return api.signed<T>(who, "POST", path, body, { timestamp: writeStamp(who), ...options });
}

/** Waits until the relayed writes answer something other than 503 (the relayer is ready). */
export async function writesReady(api: SigningClient, who: Credentials): Promise<void> {
  await waitFor(
    "the relayed writes to be ready",
    async () => {
      const answer = await signedWrite(api, who, "/api/launchpad/spawn", { name: "x", symbol: "1" });
      return answer.status !== 503 ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
}
