// Expected failures are values with stable codes; exceptions are reserved for bugs.
export type Result<T, C extends string = string> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: C; readonly message: string };

export function ok<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}

export function fail<C extends string>(
  code: C,
  message: string,
): { readonly ok: false; readonly code: C; readonly message: string } {
  return { ok: false, code, message };
}

/**
 * Every rejection the exchange answers a client with, one closed set: the HTTP adapter maps each
 * to its status (exchange/adapters/http/domain-errors.ts), so no other layer knows about HTTP.
 */
export const DOMAIN_ERROR_CODES = [
  "INVALID_PARAM",
  "UNKNOWN_PAIR",
  "UNKNOWN_CURRENCY",
  "INSUFFICIENT_BALANCE",
  "MIN_QUOTE_AMOUNT",
  "NO_LIQUIDITY",
  "POST_ONLY_WOULD_TAKE",
  "FOK_NOT_FILLABLE",
  "BELOW_MIN_WITHDRAW",
  "ABOVE_MAX_WITHDRAW",
  "AMOUNT_BELOW_FEE",
  "DEPOSITS_DISABLED",
  "WITHDRAWALS_DISABLED",
  "NOT_FOUND",
  "ORDER_NOT_OPEN",
  "DUPLICATE_DEPOSIT",
  "HOLD_CONFLICT",
  "DAILY_LIMIT_EXCEEDED",
  "WITHDRAWAL_NOT_PENDING",
] as const;
export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

/**
 * An expected rejection thrown from deep inside a command (a bad amount, an unknown pair): a value
 * with a stable code, not a bug. Whoever answers the client maps the code; anything else thrown
 * stays a bug.
 */
export class DomainError extends Error {
  readonly code: DomainErrorCode;

  constructor(code: DomainErrorCode, message: string) {
    super(message);
    this.name = "DomainError";
    this.code = code;
  }
}

/** INVALID_PARAM naming the parameter, as every client-facing message does: `amount: must be positive`. */
export function invalidInput(param: string, problem: string): DomainError {
  return new DomainError("INVALID_PARAM", `${param}: ${problem}`);
}
