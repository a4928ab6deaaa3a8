import { and, count, desc, eq, gt, isNotNull, isNull, lte, max, or } from "ponder";
import { proposal, vote } from "../../indexer/schema.ts";
import { ApiError } from "../../lib/http/index.ts";
import type { Condition, Db } from "../db.ts";
import { offsetOf, type Page, type PageQuery, toPage } from "../shared/pagination.ts";
import { findToken } from "../shared/token-lookup.ts";
import { wholeUnitsNumber } from "../shared/units.ts";
import type {
  ProposalDetail,
  ProposalJson,
  ProposalStateName,
  ProposalStatusFilter,
  Tally,
  VoteJson,
} from "./proposals-routes.ts";

/**
 * Proposal reads: the state, the tally and the JSON of a proposal row, as WorkerVoting computes
 * them (contracts/WorkerVoting.sol: state(), getTally(), _isPassing()).
 */

export type ProposalRow = typeof proposal.$inferSelect;
type VoteRow = typeof vote.$inferSelect;

/** WorkerVoting.EXECUTION_WINDOW: a Succeeded proposal can be executed until endTime + 7 days. */
export const EXECUTION_WINDOW = 7 * 86_400;
const BPS = 10_000n;

/** The stored tally of a proposal (a proposal row, or IWorkerVoting.Tally as getTally returns it). */
export interface TallyInput {
  yesWeight: bigint;
  noWeight: bigint;
  abstainWeight: bigint;
  quorumThreshold: bigint;
  passingThresholdBps: number | bigint;
}

/** WorkerVoting._quorumReached: every cast weight (abstain included) counts toward quorum. */
export const quorumReached = (t: TallyInput) => t.yesWeight + t.noWeight + t.abstainWeight >= t.quorumThreshold;

/** WorkerVoting._isPassing: quorum, some decided weight, and yes / (yes + no) strictly above the threshold. */
export function currentlyPassing(t: TallyInput): boolean {
  const decided = t.yesWeight + t.noWeight;
  return quorumReached(t) && decided > 0n && t.yesWeight * BPS > decided * BigInt(t.passingThresholdBps);
}

/**
 * SPEC.md's tally JSON ("Vote and tally"): weights and quorum in whole tokens (JSON numbers),
 * passingThreshold a fraction. The booleans are computed on the exact base units.
 */
export function tallyOf(t: TallyInput): Tally {
  return {
    yesWeight: wholeUnitsNumber(t.yesWeight),
    noWeight: wholeUnitsNumber(t.noWeight),
    abstainWeight: wholeUnitsNumber(t.abstainWeight),
    quorumThreshold: wholeUnitsNumber(t.quorumThreshold),
    quorumReached: quorumReached(t),
    passingThreshold: Number(t.passingThresholdBps) / Number(BPS),
    currentlyPassing: currentlyPassing(t),
  };
}

/**
 * WorkerVoting.state() at `now`. `lastExecutionAt` is the newest executedAt among the worker's
 * proposals (null if none was executed).
 *
 * Superseded is approximated: the contract compares the worker's config with the config it had
 * when the proposal was made, and the indexed tables keep only the current config. Here a
 * passing, closed, unexecuted proposal is superseded when another proposal of the same worker
 * was executed after it was made (which covers the contract's "a later proposal was executed").
 * Not seen: a config set by the registry admin (shown as succeeded or expired), an execution
 * that left the config as it was (shown as superseded), an execution in the same second as the
 * proposal (shown as not superseding it).
 */
export function proposalState(
  p: Pick<ProposalRow, "startTime" | "endTime" | "proposedAt" | "executedAt"> & TallyInput,
  now: number,
  lastExecutionAt: number | null,
): ProposalStateName {
  if (p.executedAt !== null) return "executed";
  if (now < p.startTime) return "pending";
  if (now < p.endTime) return "active";
  if (!currentlyPassing(p)) return "defeated";
  if (lastExecutionAt !== null && lastExecutionAt > p.proposedAt) return "superseded";
  if (now >= p.endTime + EXECUTION_WINDOW) return "expired";
  return "succeeded";
}

/** The proposal JSON of both endpoints. */
export function toProposalJson(p: ProposalRow, now: number, lastExecutionAt: number | null): ProposalJson {
  const state = proposalState(p, now, lastExecutionAt);
  return {
    proposalId: p.id.toString(),
    workerId: Number(p.workerId),
    tokenAddress: p.token,
    proposer: p.proposer,
    state,
    open: state === "active",
    proposedAt: p.proposedAt,
    startsAt: p.startTime,
    snapshot: p.startTime - 1,
    endsAt: p.endTime,
    executedAt: p.executedAt,
    description: p.description,
    config: {
      slippageCapBps: p.slippageCapBps,
      mevProtection: p.mevProtection as ProposalJson["config"]["mevProtection"],
      signalSubscriptions: p.signalSubscriptions,
    },
    voteCount: p.voteCount,
    tally: tallyOf(p),
    txHash: p.txHash,
  };
}

export function toVoteJson(v: VoteRow): VoteJson {
  return {
    voteId: v.voteId.toString(),
    proposalId: v.proposalId.toString(),
    vote: v.support as VoteJson["vote"],
    weight: wholeUnitsNumber(v.weight),
    txHash: v.txHash,
    votedAt: v.votedAt,
    voter: v.voter,
    comment: v.comment,
    relayed: v.relayed,
  };
}

/**
 * The list filter in SQL, the same partition as proposalState: open = active (and the worker
 * detail's activeProposals), pending, closed = everything else.
 */
export function statusCondition(status: ProposalStatusFilter, now: number): Condition {
  if (status === "pending") return and(isNull(proposal.executedAt), gt(proposal.startTime, now)) as Condition;
  if (status === "open") {
    return and(isNull(proposal.executedAt), lte(proposal.startTime, now), gt(proposal.endTime, now)) as Condition;
  }
  return or(isNotNull(proposal.executedAt), lte(proposal.endTime, now)) as Condition;
}

/** The newest execution among a worker's proposals (Superseded's approximation). */
async function lastExecutionAt(db: Db, workerId: bigint): Promise<number | null> {
  const [row] = await db
    .select({ at: max(proposal.executedAt) })
    .from(proposal)
    .where(eq(proposal.workerId, workerId));
  return row?.at ?? null;
}

/** GET /api/agents/workers/:tokenId/proposals. */
export async function listWorkerProposals(
  db: Db,
  now: number,
  tokenRef: string,
  query: PageQuery & { status?: ProposalStatusFilter },
): Promise<Page<ProposalJson>> {
  const { worker: w } = await findToken(db, tokenRef);
  const where = and(
    eq(proposal.workerId, w.id),
    query.status !== undefined ? statusCondition(query.status, now) : undefined,
  );
  const [rows, [total], executedAt] = await Promise.all([
    db.select().from(proposal).where(where).orderBy(desc(proposal.id)).limit(query.pageSize).offset(offsetOf(query)),
    db.select({ n: count() }).from(proposal).where(where),
    lastExecutionAt(db, w.id),
  ]);
  return toPage(
    rows.map((row) => toProposalJson(row, now, executedAt)),
    query,
    total?.n ?? 0,
  );
}

export const proposalNotFound = (id: bigint) => new ApiError(404, "PROPOSAL_NOT_FOUND", `No proposal ${id}`);

/** GET /api/agents/proposals/:proposalId: the proposal and one page of its votes. */
export async function proposalDetail(db: Db, now: number, id: bigint, query: PageQuery): Promise<ProposalDetail> {
  const [row] = await db.select().from(proposal).where(eq(proposal.id, id)).limit(1);
  if (!row) throw proposalNotFound(id);
  const [votes, executedAt] = await Promise.all([
    db
      .select()
      .from(vote)
      .where(eq(vote.proposalId, id))
      .orderBy(desc(vote.voteId))
      .limit(query.pageSize)
      .offset(offsetOf(query)),
    lastExecutionAt(db, row.workerId),
  ]);
  // voteCount is kept by the VoteCast handler with each vote row: the exact total.
  return { ...toProposalJson(row, now, executedAt), votes: toPage(votes.map(toVoteJson), query, row.voteCount) };
}
