import type { Credentials, ExchangeClient } from "../exchange/signing-client.ts";
import { waitFor } from "./harness.ts";

/** Waits until the relayed writes answer something other than 503 (the relayer is ready). */
export async function writesReady(api: ExchangeClient, who: Credentials): Promise<void> {
  await waitFor(
    "the relayed writes to be ready",
    async () => {
      const answer = await api.signed(who, "POST", "/api/launchpad/spawn", { name: "x", symbol: "1" });
      return answer.status !== 503 ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
}
