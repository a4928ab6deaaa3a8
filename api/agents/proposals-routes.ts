import { z } from "zod";
import { MEV_PROTECTIONS, SUPPORTS } from "../../indexer/enums.ts";
import { defineRoute } from "../../lib/http/index.ts";
import { enumParam, pageQuery, tokenRefParam } from "../shared/params.ts";
import { addressOut, count, integerId, pageSchema, txHashOut, unixTime } from "../shared/schemas.ts";

/**
 * The proposal reads (beyond SPEC.md, which shows a proposal only as its id and tally): what a
 * voter needs to find what to vote on. Requests and answers, as validated, typed and documented.
 */

const AGENTS_BASE = "/api/agents";
const tag = "agents";

/** IWorkerVoting.ProposalState, as WorkerVoting.state() derives it (names in lower case). */
export const PROPOSAL_STATES = [
  "pending",
  "active",
  "defeated",
  "succeeded",
  "executed",
  "superseded",
  "expired",
] as const;
export type ProposalStateName = (typeof PROPOSAL_STATES)[number];

/** The list's status filter: `open` = active, `pending`, `closed` = every other state. */
export const PROPOSAL_STATUS_FILTERS = ["open", "pending", "closed"] as const;
export type ProposalStatusFilter = (typeof PROPOSAL_STATUS_FILTERS)[number];

export const PROPOSAL_NOT_FOUND = { status: 404, code: "PROPOSAL_NOT_FOUND", when: "no proposal has this id" } as const;
const TOKEN_NOT_FOUND = { status: 404, code: "NOT_FOUND", when: "no agent token has this address or NFT id" } as const;

/** uint256 ids as decimal strings (SPEC.md: proposalId and voteId are strings). */
const decimalId = z.string().regex(/^\d{1,78}$/);
const wholeTokens = z.number().min(0).describe("Whole agent tokens (18-decimal base units / 10^18)");

/** SPEC.md "Vote and tally": the running tally of one proposal. */
export const tallySchema = z.object({
  yesWeight: wholeTokens,
  noWeight: wholeTokens,
  abstainWeight: wholeTokens,
  quorumThreshold: wholeTokens.describe("Weight (yes + no + abstain) the proposal needs; fixed at proposal"),
  quorumReached: z.boolean().describe("yesWeight + noWeight + abstainWeight >= quorumThreshold"),
  passingThreshold: z.number().min(0).max(1).describe("A fraction: 0.5 = 50% of yes / (yes + no)"),
  currentlyPassing: z
    .boolean()
    .describe("quorumReached and yes / (yes + no) strictly above passingThreshold (no decided votes: false)"),
});

export const proposalSchema = z.object({
  proposalId: decimalId,
  workerId: integerId,
  tokenAddress: addressOut,
  proposer: addressOut,
  state: z
    .enum(PROPOSAL_STATES)
    .describe(
      "As WorkerVoting.state() at now: executed; else pending before startsAt, active until endsAt; then defeated unless currentlyPassing, superseded (approximated: another proposal of the worker was executed after this one was made; an admin config change is not seen), expired from endsAt + 7 days, else succeeded",
    ),
  open: z.boolean().describe("Accepts votes now (state active)"),
  proposedAt: unixTime,
  startsAt: unixTime.describe("Voting opens (the first second votes are accepted)"),
  snapshot: unixTime.describe(
    "startsAt - 1: the time whose votes weigh (capped by the voter's votes just before proposedAt)",
  ),
  endsAt: unixTime.describe("Voting closes: votes are accepted while now < endsAt"),
  executedAt: unixTime.nullable().describe("When the proposal was executed; null if it was not"),
  description: z.string(),
  config: z
    .object({
      slippageCapBps: z.number().int(),
      mevProtection: z.enum(MEV_PROTECTIONS),
      signalSubscriptions: z.array(z.string()),
    })
    .describe("The worker config the proposal would set"),
  voteCount: count,
  tally: tallySchema,
  txHash: txHashOut.describe("The proposing transaction"),
});

/** SPEC.md's vote shape plus voter, comment and relayed. */
export const voteSchema = z.object({
  voteId: decimalId,
  proposalId: decimalId,
  vote: z.enum(SUPPORTS),
  weight: wholeTokens,
  txHash: txHashOut,
  votedAt: unixTime,
  voter: addressOut,
  comment: z.string(),
  relayed: z.boolean().describe("A relayer cast the vote for the voter (a signed API vote)"),
});

export const proposalIdParam = z
  .string()
  .regex(/^\d{1,78}$/, { error: "must be a proposal id (decimal digits, at most 78)" })
  .transform((value) => BigInt(value))
  .pipe(z.bigint())
  .meta({ type: "string", pattern: "^\\d{1,78}$" });

export const workerProposalsRoute = defineRoute({
  method: "get",
  access: "public",
  path: `${AGENTS_BASE}/workers/{tokenId}/proposals`,
  tag,
  summary: "Proposals on one worker's config (beyond SPEC.md)",
  description:
    "Beyond SPEC.md. Newest first (by proposalId). status: open (accepting votes), pending (voting not yet open) or closed (every other state: defeated, succeeded, executed, superseded, expired).",
  params: z.object({ tokenId: tokenRefParam.describe("The agent token's address or its registry NFT id") }),
  query: pageQuery.extend({
    status: enumParam(PROPOSAL_STATUS_FILTERS).optional().describe("open | pending | closed"),
  }),
  response: pageSchema(proposalSchema),
  errors: [TOKEN_NOT_FOUND],
});

export const proposalDetailResponse = proposalSchema.extend({
  votes: pageSchema(voteSchema).describe("The proposal's votes, newest first (by voteId), paged by page/pageSize"),
});

export const proposalDetailRoute = defineRoute({
  method: "get",
  access: "public",
  path: `${AGENTS_BASE}/proposals/{proposalId}`,
  tag,
  summary: "One proposal with its votes (beyond SPEC.md)",
  description: "Beyond SPEC.md. The proposal as in the worker's proposal list, plus a page of its votes, newest first.",
  params: z.object({ proposalId: proposalIdParam.describe("The proposal id (decimal)") }),
  query: pageQuery,
  response: proposalDetailResponse,
  errors: [PROPOSAL_NOT_FOUND],
});

export const proposalRoutes = [workerProposalsRoute, proposalDetailRoute];

export type Tally = z.input<typeof tallySchema>;
export type ProposalJson = z.input<typeof proposalSchema>;
export type VoteJson = z.input<typeof voteSchema>;
export type ProposalDetail = z.input<typeof proposalDetailResponse>;
