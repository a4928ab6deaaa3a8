import { ponder } from "ponder:registry";
import { agentNft, boost } from "ponder:schema";
import { lc, logId, observe, seconds } from "./shared.ts";

ponder.on("Booster:Boosted", async ({ event, context }) => {
  await observe(event, context);
  const { agentNftId, token, buyer, tier, expiresAt, paid } = event.args;
  await context.db.insert(boost).values({
    id: logId(event),
    agentNftId,
    token: lc(token),
    buyer: lc(buyer),
    tier,
    expiresAt: Number(expiresAt),
    paid,
    timestamp: seconds(event),
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    txHash: event.transaction.hash,
  });
  await context.db.update(agentNft, { nftId: agentNftId }).set({ boostTier: tier, boostExpiresAt: Number(expiresAt) });
});
