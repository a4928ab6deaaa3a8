import { ApiError, type ErrorDoc } from "../../lib/http/index.ts";

/**
 * The closed set of write error codes with SPEC.md's statuses. Two are ours (SPEC.md is silent):
 * - VOTING_NOT_STARTED 409: the request is well formed and the proposal exists, but its state
 *   conflicts with voting now, like PROPOSAL_CLOSED (409); a client may retry after startsAt.
 * - NO_CHAIN_ADDRESS 403: the caller is authenticated but not allowed to write on-chain until the
 *   exchange links a chain address to the account, like LEVEL_TOO_LOW (403).
 */
export const WRITE_ERRORS = {
  UNAUTHORIZED: 401,
  LEVEL_TOO_LOW: 403,
  NO_HOLDINGS: 403,
  NO_CHAIN_ADDRESS: 403,
  PROPOSAL_NOT_FOUND: 404,
  ALREADY_VOTED: 409,
  PROPOSAL_CLOSED: 409,
  VOTING_NOT_STARTED: 409,
  INVALID_PARAM: 400,
  INVALID_SYMBOL: 400,
  SYMBOL_TAKEN: 400,
  COOLDOWN_ACTIVE: 400,
  INSUFFICIENT_FEE: 402,
  SPAWNER_FAILED: 500,
} as const;

export type WriteErrorCode = keyof typeof WRITE_ERRORS;

export const writeError = (code: WriteErrorCode, message: string) => new ApiError(WRITE_ERRORS[code], code, message);

/**
 * Seconds a client is told to wait (Retry-After) before retrying a 503 or 504 of the writes: long
 * enough for a node or an exchange that blinked, short enough that a client is not kept away.
 */
export const RETRY_AFTER_SECONDS = 5;

/** 503 UNAVAILABLE: something the write needs (chain, exchange, journal, relayer) cannot serve now; nothing was done. */
export const unavailable = (message: string, retryAfterSeconds = RETRY_AFTER_SECONDS) =>
  new ApiError(503, "UNAVAILABLE", message, { "Retry-After": String(retryAfterSeconds) });

/** 504: the write reached the chain (or may have) but its outcome is not known yet; a retry with its key answers it. */
export const writePending = (code: "TX_PENDING" | "WRITE_PENDING", message: string) =>
  new ApiError(504, code, message, { "Retry-After": String(RETRY_AFTER_SECONDS) });

/** A 503 or 504 without Retry-After gets one: every "not now" of the writes says when to come back. */
export function withRetryAfter(error: unknown): unknown {
  if (!(error instanceof ApiError) || (error.status !== 503 && error.status !== 504)) return error;
  if (Object.keys(error.headers).some((name) => name.toLowerCase() === "retry-after")) return error;
  return new ApiError(error.status, error.code, error.message, {
    ...error.headers,
    "Retry-After": String(RETRY_AFTER_SECONDS),
  });
}

const doc = (code: WriteErrorCode, when: string): ErrorDoc => ({ status: WRITE_ERRORS[code], code, when });

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
