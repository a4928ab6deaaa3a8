import { UnavailableError } from "../../../lib/unavailable.ts";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError } from "../../../lib/http/index.ts";
import { DomainError, type DomainErrorCode } from "../../application/index.ts";

// The one place where the exchange's rejections meet HTTP: every domain error code and the status
// it is answered with (exchange/README.md lists them). A code without a status does not compile.

export const DOMAIN_ERROR_STATUS: Record<DomainErrorCode, ContentfulStatusCode> = {
  INVALID_PARAM: 400,
  UNKNOWN_PAIR: 400,
  UNKNOWN_CURRENCY: 400,
  INSUFFICIENT_BALANCE: 400,
  MIN_QUOTE_AMOUNT: 400,
  NO_LIQUIDITY: 400,
  POST_ONLY_WOULD_TAKE: 400,
  FOK_NOT_FILLABLE: 400,
  BELOW_MIN_WITHDRAW: 400,
  ABOVE_MAX_WITHDRAW: 400,
  AMOUNT_BELOW_FEE: 400,
  DEPOSITS_DISABLED: 400,
  WITHDRAWALS_DISABLED: 400,
  NOT_FOUND: 404,
  ORDER_NOT_OPEN: 409,
  DUPLICATE_DEPOSIT: 409,
  HOLD_CONFLICT: 409,
  DAILY_LIMIT_EXCEEDED: 400,
  WITHDRAWAL_NOT_PENDING: 409,
};

/** A failed Result (or a thrown DomainError) as the `{code, message}` answer with its status. */
export function apiErrorOf(failure: { readonly code: DomainErrorCode; readonly message: string }): ApiError {
  return new ApiError(DOMAIN_ERROR_STATUS[failure.code], failure.code, failure.message);
}

/**
 * The answer to an expected failure: a DomainError's, or 503 while the database is away. Anything
 * else is a bug (undefined: the caller lets it through to a 500). The app's onError and the batch
 * routes' per-item answers both classify with this.
 */
export function knownErrorAnswer(error: Error): ApiError | undefined {
  if (error instanceof UnavailableError) return new ApiError(503, "UNAVAILABLE", error.message);
  return error instanceof DomainError ? apiErrorOf(error) : undefined;
}

/** A chain-only operator route on an exchange without CHAIN_GATEWAY: 503, not a lost connection. */
export function notJoinedToChain(consequence?: string): UnavailableError {
  const message = "the exchange is not joined to a chain (CHAIN_GATEWAY)";
  return new UnavailableError("chain", consequence ? `${message}: ${consequence}` : message, { connectionLost: false });
}
