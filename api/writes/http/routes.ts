import { defineRoute, type ErrorDoc } from "../../../lib/http/index.ts";
import { tokenRefParam } from "../../shared/params.ts";
import { doc, OPERATOR_ERRORS, SPAWN_ERRORS, VOTE_ERRORS } from "./statuses.ts";
import { proposalSchema } from "../../agents/index.ts";
import {
  operatorBody,
  operatorResponse,
  proposeBody,
  spawnBody,
  spawnResponse,
  voteBody,
  voteResponse,
} from "../schemas.ts";
import { bodyProblem } from "./body.ts";
import { z } from "zod";

/** The signed writes: requests and answers, as validated, typed and documented. */

const RELAYED_ERRORS: readonly ErrorDoc[] = [
  doc(
    "UNAUTHORIZED",
    "API-Timestamp missing (required on these writes: an untimestamped signature could be replayed), or the signature already used",
  ),
  doc(
    "INVALID_PARAM",
    "the Idempotency-Key header is not 1 to 200 visible ASCII characters (refused before the signature is checked)",
  ),
  doc("IDEMPOTENCY_KEY_REUSED", "the Idempotency-Key was already used by this user for a different request"),
  doc(
    "REQUEST_IN_PROGRESS",
    "the first request with this Idempotency-Key is still being processed; retry with the same key",
  ),
  doc(
    "UNAVAILABLE",
    "the exchange, the chain's node, the relayer's journal or the relayer's balance cannot serve the write now (each call out has a deadline); nothing was charged or sent. Retry-After says when to retry",
  ),
  doc(
    "TX_PENDING",
    "the transaction was sent but not mined in time; it stays queued; retry with the same Idempotency-Key for the result (Retry-After)",
  ),
  doc(
    "WRITE_PENDING",
    "the write was cut off after it may have reached the chain (a timeout, its worker thread restarted, or the chain's node stopped answering after the broadcast) and may still complete; retry with the same Idempotency-Key for its answer (Retry-After)",
  ),
];

/** The writes' own header rules, on top of the signing headers' documentation. */
const writeHeaders = z.object({
  "API-Timestamp": z.string().meta({
    description:
      "Required on these writes: epoch milliseconds, appended to the signature text. The exchange accepts the signature once, within 30 s behind and 1 s ahead of its clock (SIGNATURE_WINDOW_MS, SIGNATURE_MAX_FUTURE_MS)",
    pattern: "^(0|[1-9][0-9]{0,15})$",
  }),
  "Idempotency-Key": z.string().optional().meta({
    description:
      "1 to 200 visible ASCII characters (0x21-0x7E), scoped to the user: a retry with the same key and body answers the first request's answer",
    pattern: "^[\\x21-\\x7e]{1,200}$",
  }),
});

const RELAYED =
  "Signed with an exchange API key (SPEC.md, Authentication; the ecosystem API verifies it through the exchange), " +
  "with `API-Timestamp` required: SPEC.md leaves it optional, but a signature without it could be replayed. " +
  "The relayer account sends the transaction and the answer comes from its receipt. An `Idempotency-Key` header " +
  "(1-200 visible ASCII characters, scoped to the user) makes a retry return the first answer instead of acting twice. " +
  "Every 503 and 504 carries Retry-After.";

export const spawnRoute = defineRoute({
  method: "post",
  access: "signed",
  path: "/api/launchpad/spawn",
  tag: "launchpad",
  summary: "Spawn an agent token (signed request)",
  description: `${RELAYED} The spawn fee (the spawner's current fee, in the native token) is held from the caller's exchange balance of the native currency, charged when the spawn is mined (the contract burns it) and released if it fails. The owner is the caller's linked chain address.`,
  requestHeaders: writeHeaders,
  body: spawnBody,
  bodyProblem,
  response: spawnResponse,
  status: 201,
  errors: [...SPAWN_ERRORS, ...RELAYED_ERRORS],
});

export const voteRoute = defineRoute({
  method: "post",
  access: "signed",
  path: "/api/agents/workers/{tokenId}/vote",
  tag: "agents",
  summary: "Vote on a worker parameter proposal (signed request)",
  description: `${RELAYED} The weight is the voter's token votes at the proposal's snapshot (the lesser of the votes just before the proposal and just before voting opened). Votes per user are limited (VOTE_RATE_LIMIT_PER_MINUTE) on top of the per-IP quota.`,
  params: z.object({ tokenId: tokenRefParam }),
  requestHeaders: writeHeaders,
  body: voteBody,
  bodyProblem,
  response: voteResponse,
  status: 201,
  errors: [
    ...VOTE_ERRORS,
    doc("NOT_FOUND", "no agent token has this address or NFT id"),
    doc("RATE_LIMITED", "too many votes from this user (per-user vote limit)"),
    ...RELAYED_ERRORS,
  ],
});

export const proposeRoute = defineRoute({
  method: "post",
  access: "signed",
  path: "/api/agents/workers/{tokenId}/proposals",
  tag: "agents",
  summary: "Open a proposal to change a worker's config (signed request; beyond SPEC.md)",
  description: `${RELAYED} Not in SPEC.md: voters need proposals to vote on. The relayer calls WorkerVoting.proposeFor with the caller's linked chain address as the proposer, under the contract's proposer rules (at least one whole token of votes just before now); the API also asks for the voting level (20). The answer is the proposal as GET /api/agents/proposals/{proposalId} shows it, pending for the voting delay. Proposals count against the per-user vote limit.`,
  params: z.object({ tokenId: tokenRefParam }),
  requestHeaders: writeHeaders,
  body: proposeBody,
  response: proposalSchema,
  status: 201,
  errors: [
    VOTE_ERRORS.find((e) => e.code === "NO_CHAIN_ADDRESS")!,
    doc("LEVEL_TOO_LOW", "user level below 20"),
    doc("NO_HOLDINGS", "less than 1 whole token of votes just before now"),
    doc("NOT_FOUND", "no agent token has this address or NFT id"),
    doc("RATE_LIMITED", "too many votes and proposals from this user (per-user limit)"),
    ...RELAYED_ERRORS,
  ],
});

export const operatorRoute = defineRoute({
  method: "post",
  access: "signed",
  path: "/api/agents/workers/{tokenId}/operator",
  tag: "agents",
  summary: "Hand a token's worker to another operator (signed request; beyond SPEC.md)",
  description: `${RELAYED} Not in SPEC.md (issue 28, bring your own agent): the token's owner, the caller whose linked chain address owns the token's agent NFT, names the address that records the worker's actions from now on; the reference runtime leaves a worker it no longer operates alone, and takes it up again once handed back to its operator (AgentSpawner.workerOperator()). The relayer calls AgentRegistry.setWorkerOperatorFor, which checks the ownership itself; the new operator's actions show in GET /api/agents/action-logs under the token (sourceTier worker, sourceAgentId the worker's id).`,
  params: z.object({ tokenId: tokenRefParam }),
  requestHeaders: writeHeaders,
  body: operatorBody,
  bodyProblem,
  response: operatorResponse,
  status: 201,
  errors: [
    ...OPERATOR_ERRORS,
    doc("INVALID_PARAM", "operator: the zero address, or an address acting for a queen or scout"),
    ...RELAYED_ERRORS,
  ],
});

export const writeRoutes = [spawnRoute, voteRoute, proposeRoute, operatorRoute];
