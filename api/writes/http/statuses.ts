import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError, type ErrorDoc } from "../../../lib/http/index.ts";
import { UnavailableError } from "../../../lib/unavailable.ts";
import type { WriteCode, WriteOutcome } from "../outcome.ts";

/**
 * The one place where the writes' outcomes meet HTTP: every code and the status it is answered
 * with (SPEC.md's, where it names one), and the Retry-After of every "not now". Only the HTTP
 * adapter (app.ts, routes.ts) reads it; a code without a status does not compile.
 *
 * Ours where SPEC.md is silent:
 * - VOTING_NOT_STARTED 409: the request is well formed and the proposal exists, but its state
 *   conflicts with voting now, like PROPOSAL_CLOSED (409); a client may retry after startsAt.
 * - NOT_TOKEN_OWNER 403: the caller is authenticated, but its chain address does not own the
 *   token's agent NFT, so it may not choose who operates the worker; a permission problem.
 * - NO_CHAIN_ADDRESS 403: the caller is authenticated but not allowed to write on-chain until the
 *   exchange links a chain address to the account, like LEVEL_TOO_LOW (403).
 */
export const WRITE_STATUS: Record<WriteCode | "UNAUTHORIZED" | "UNAVAILABLE", ContentfulStatusCode> = {
  UNAUTHORIZED: 401,
  LEVEL_TOO_LOW: 403,
  NO_HOLDINGS: 403,
  NO_CHAIN_ADDRESS: 403,
  NOT_FOUND: 404,
  PROPOSAL_NOT_FOUND: 404,
  ALREADY_VOTED: 409,
  PROPOSAL_CLOSED: 409,
  VOTING_NOT_STARTED: 409,
  NOT_TOKEN_OWNER: 403,
  INVALID_PARAM: 400,
  INVALID_SYMBOL: 400,
  SYMBOL_TAKEN: 400,
  COOLDOWN_ACTIVE: 400,
  UNKNOWN_CURRENCY: 400,
  INSUFFICIENT_FEE: 402,
  HOLD_CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  REQUEST_IN_PROGRESS: 409,
  RATE_LIMITED: 429,
  SPAWNER_FAILED: 500,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  TX_PENDING: 504,
  WRITE_PENDING: 504,
};

/** The status a done write is answered with (the routes declare it too). */
export const CREATED = 201;

/**
 * Seconds a client is told to wait (Retry-After) before retrying a 503 or 504 of the writes: long
 * enough for a node or an exchange that blinked, short enough that a client is not kept away.
 */
export const RETRY_AFTER_SECONDS = 5;

/** A write's outcome as the HTTP answer: 201 and its body, or the rejection's status and `{code, message}`. */
export function httpAnswerOf(outcome: WriteOutcome): { status: ContentfulStatusCode; body: unknown } | ApiError {
  return outcome.ok ? { status: CREATED, body: outcome.value } : apiErrorOf(outcome);
}

/** A rejection as the error answer; every 503, 504 and 429 says when to come back. */
export function apiErrorOf(rejected: {
  readonly code: keyof typeof WRITE_STATUS;
  readonly message: string;
  readonly retryAfterSeconds?: number;
}): ApiError {
  const status = WRITE_STATUS[rejected.code];
  const retryAfter = rejected.retryAfterSeconds ?? (status === 503 || status === 504 ? RETRY_AFTER_SECONDS : undefined);
  return new ApiError(
    status,
    rejected.code,
    rejected.message,
    retryAfter === undefined ? {} : { "Retry-After": String(retryAfter) },
  );
}

/**
 * A thrown error as the HTTP layer answers it: UnavailableError is 503 UNAVAILABLE with
 * Retry-After; an ApiError of the HTTP layer itself (a signature refused, a body too large) as
 * it is; anything else is a bug, left for the app's onError (500).
 */
export function httpErrorOf(error: unknown): unknown {
  if (error instanceof UnavailableError)
    return apiErrorOf({ code: "UNAVAILABLE", message: error.message, retryAfterSeconds: error.retryAfterSeconds });
  if (!(error instanceof ApiError) || (error.status !== 503 && error.status !== 504)) return error;
  if (Object.keys(error.headers).some((name) => name.toLowerCase() === "retry-after")) return error;
  return new ApiError(error.status, error.code, error.message, {
    ...error.headers,
    "Retry-After": String(RETRY_AFTER_SECONDS),
  });
}

/** A documented error of the write routes, with its status from the map. */
export const doc = (code: keyof typeof WRITE_STATUS, when: string): ErrorDoc => ({
  status: WRITE_STATUS[code],
  code,
  when,
});

/** The route kit adds 401 UNAUTHORIZED, 400 INVALID_PARAM and 500 INTERNAL for signed routes. */
export const VOTE_ERRORS: readonly ErrorDoc[] = [
  doc("NO_CHAIN_ADDRESS", "the account has no chain address linked on the exchange"),
  doc("LEVEL_TOO_LOW", "user level below 20"),
  doc("NO_HOLDINGS", "less than 1 whole token of votes at the proposal's snapshot"),
  doc("PROPOSAL_NOT_FOUND", "no such proposal, or it is not this token's worker's"),
  doc("ALREADY_VOTED", "the user already voted on this proposal"),
  doc("PROPOSAL_CLOSED", "the voting period ended"),
  doc("VOTING_NOT_STARTED", "the proposal's voting has not started yet (the message says when)"),
];

export const SPAWN_ERRORS: readonly ErrorDoc[] = [
  doc("NO_CHAIN_ADDRESS", "the account has no chain address linked on the exchange"),
  doc("INVALID_SYMBOL", "symbol does not match [A-Z]{3,5}"),
  doc("SYMBOL_TAKEN", "the symbol already exists on the chain"),
  doc("COOLDOWN_ACTIVE", "the spawn cooldown is still active for the address"),
  doc("INSUFFICIENT_FEE", "the available native balance does not cover the spawn fee"),
  doc("SPAWNER_FAILED", "the spawner contract reverted (rare; retry); the message has the transaction hash"),
];

export const OPERATOR_ERRORS: readonly ErrorDoc[] = [
  doc("NO_CHAIN_ADDRESS", "the account has no chain address linked on the exchange"),
  doc("NOT_TOKEN_OWNER", "the caller's linked chain address does not own the token's agent NFT"),
  doc("NOT_FOUND", "no agent token has this address or NFT id"),
];
