import { ponder } from "ponder:registry";
import { proposal, vote } from "ponder:schema";
import { MEV_PROTECTIONS, nameOf, SUPPORTS } from "../enums.ts";
import { lc, observe, seconds } from "./shared.ts";

ponder.on("WorkerVoting:ProposalCreated", async ({ event, context }) => {
  await observe(event, context);
  const a = event.args;
  await context.db.insert(proposal).values({
    id: a.proposalId,
    workerId: a.workerId,
    token: lc(a.token),
    proposer: lc(a.proposer),
    proposedAt: Number(a.proposedAt),
    startTime: Number(a.startTime),
    endTime: Number(a.endTime),
    quorumThreshold: a.quorumThreshold,
    passingThresholdBps: a.passingThresholdBps,
    slippageCapBps: a.config.slippageCapBps,
    mevProtection: nameOf(MEV_PROTECTIONS, a.config.mevProtection),
    signalSubscriptions: [...a.config.signalSubscriptions],
    description: a.description,
    yesWeight: 0n,
    noWeight: 0n,
    abstainWeight: 0n,
    voteCount: 0,
    executedAt: null,
    txHash: event.transaction.hash,
  });
});

ponder.on("WorkerVoting:VoteCast", async ({ event, context }) => {
  await observe(event, context);
  const a = event.args;
  const support = nameOf(SUPPORTS, a.support);
  await context.db.insert(vote).values({
    voteId: a.voteId,
    proposalId: a.proposalId,
    voter: lc(a.voter),
    support,
    weight: a.weight,
    comment: a.comment,
    relayed: a.relayed,
    votedAt: seconds(event),
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    txHash: event.transaction.hash,
  });
  await context.db.update(proposal, { id: a.proposalId }).set((p) => ({
    yesWeight: p.yesWeight + (support === "yes" ? a.weight : 0n),
    noWeight: p.noWeight + (support === "no" ? a.weight : 0n),
    abstainWeight: p.abstainWeight + (support === "abstain" ? a.weight : 0n),
    voteCount: p.voteCount + 1,
  }));
});

ponder.on("WorkerVoting:ProposalExecuted", async ({ event, context }) => {
  await observe(event, context);
  await context.db.update(proposal, { id: event.args.proposalId }).set({ executedAt: seconds(event) });
});
