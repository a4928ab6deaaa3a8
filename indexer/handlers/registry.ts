import { ponder } from "ponder:registry";
import { agentNft, worker } from "ponder:schema";
import { zeroAddress } from "viem";
import { MEV_PROTECTIONS, nameOf, TIERS, WORKER_STATUSES } from "../enums.ts";
import { lc, observe, seconds } from "./shared.ts";

const NO_METADATA = { description: "", logoUri: "", website: "" };

ponder.on("AgentRegistry:AgentTokenRegistered", async ({ event, context }) => {
  await observe(event, context);
  const { nftId, token, owner, metadata } = event.args;
  await context.db.insert(agentNft).values({
    nftId,
    kind: "token",
    token: lc(token),
    owner: lc(owner),
    ...metadata,
    registeredAt: seconds(event),
  });
});

ponder.on("AgentRegistry:AgentRegistered", async ({ event, context }) => {
  await observe(event, context);
  const { nftId, tier, operator, owner } = event.args;
  await context.db.insert(agentNft).values({
    nftId,
    kind: nameOf(TIERS, tier),
    operator: lc(operator),
    owner: lc(owner),
    ...NO_METADATA,
    registeredAt: seconds(event),
  });
});

ponder.on("AgentRegistry:AgentOperatorChanged", async ({ event, context }) => {
  await observe(event, context);
  const { nftId, newOperator } = event.args;
  await context.db.update(agentNft, { nftId }).set({ operator: newOperator === zeroAddress ? null : lc(newOperator) });
});

ponder.on("AgentRegistry:MetadataUpdated", async ({ event, context }) => {
  await observe(event, context);
  await context.db.update(agentNft, { nftId: event.args.nftId }).set({ ...event.args.metadata });
});

// Mints precede the registration events that create the row (and carry the owner).
ponder.on("AgentRegistry:Transfer", async ({ event, context }) => {
  await observe(event, context);
  const { from, to, tokenId } = event.args;
  if (from === zeroAddress) return;
  await context.db.update(agentNft, { nftId: tokenId }).set({ owner: lc(to) });
});

ponder.on("AgentRegistry:WorkerCreated", async ({ event, context }) => {
  await observe(event, context);
  const { workerId, agentNftId, token, operator, config } = event.args;
  await context.db.insert(worker).values({
    id: workerId,
    agentNftId,
    token: lc(token),
    operator: lc(operator),
    status: "active",
    deployedAt: seconds(event),
    lastActiveAt: seconds(event),
    slippageCapBps: config.slippageCapBps,
    mevProtection: nameOf(MEV_PROTECTIONS, config.mevProtection),
    signalSubscriptions: [...config.signalSubscriptions],
    totalActions: 0,
  });
  await context.db.update(agentNft, { nftId: agentNftId }).set({ workerId });
});

// Every status change ends the override's suspension as it was (a manager's word, a resume);
// a new one is set by the WorkerSuspended that follows its WorkerStatusChanged in the same call.
ponder.on("AgentRegistry:WorkerStatusChanged", async ({ event, context }) => {
  await observe(event, context);
  const { workerId, newStatus } = event.args;
  await context.db.update(worker, { id: workerId }).set({
    status: nameOf(WORKER_STATUSES, newStatus),
    suspendedUntil: null,
    suspendedByTier: null,
    resumeStatus: null,
  });
});

ponder.on("AgentRegistry:WorkerSuspended", async ({ event, context }) => {
  await observe(event, context);
  const { workerId, byTier, until, resumeTo } = event.args;
  await context.db.update(worker, { id: workerId }).set({
    suspendedUntil: Number(until),
    suspendedByTier: nameOf(TIERS, byTier),
    resumeStatus: nameOf(WORKER_STATUSES, resumeTo),
  });
});

ponder.on("AgentRegistry:WorkerConfigUpdated", async ({ event, context }) => {
  await observe(event, context);
  const { workerId, config } = event.args;
  await context.db.update(worker, { id: workerId }).set({
    slippageCapBps: config.slippageCapBps,
    mevProtection: nameOf(MEV_PROTECTIONS, config.mevProtection),
    signalSubscriptions: [...config.signalSubscriptions],
  });
});

ponder.on("AgentRegistry:WorkerOperatorChanged", async ({ event, context }) => {
  await observe(event, context);
  await context.db.update(worker, { id: event.args.workerId }).set({ operator: lc(event.args.newOperator) });
});

ponder.on("AgentRegistry:WorkerActive", async ({ event, context }) => {
  await observe(event, context);
  await context.db.update(worker, { id: event.args.workerId }).set({ lastActiveAt: Number(event.args.timestamp) });
});
