import { ponder } from "ponder:registry";
import { action, actionHour, agentNft, worker } from "ponder:schema";
import { hourOf } from "../action-hours.ts";
import { nameOf, TIERS } from "../enums.ts";
import { decodePayload } from "../payload.ts";
import { lc, observe, seconds } from "./shared.ts";

ponder.on("ActionLog:ActionRecorded", async ({ event, context }) => {
  await observe(event, context);
  const a = event.args;
  const sourceTier = nameOf(TIERS, a.sourceTier);
  await context.db.insert(action).values({
    entryId: a.entryId,
    targetTokenId: a.targetTokenId,
    sourceTier,
    sourceAgentId: a.sourceAgentId,
    operator: lc(a.operator),
    actionType: a.actionType,
    payload: decodePayload(a.payload),
    payloadRaw: a.payload,
    reasonCode: a.reasonCode,
    isOverride: a.isOverride,
    blockNumber: event.block.number,
    timestamp: seconds(event),
    txHash: event.transaction.hash,
  });
  await context.db
    .insert(actionHour)
    .values({ targetTokenId: a.targetTokenId, hour: hourOf(seconds(event)), actions: 1 })
    .onConflictDoUpdate((current) => ({ actions: current.actions + 1 }));
  // Worker stats count every action on the worker's token, whoever recorded it.
  const nft = await context.db.find(agentNft, { nftId: a.targetTokenId });
  if (nft?.workerId == null) return;
  await context.db.update(worker, { id: nft.workerId }).set((current) => ({
    totalActions: current.totalActions + 1,
    ...(a.isOverride ? { lastOverrideAt: seconds(event), overridingTier: sourceTier } : {}),
  }));
});
