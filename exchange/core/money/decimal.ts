import { fail, ok, type Result } from "../result.ts";

// Decimal text <-> integer units with a fixed number of fractional digits.
// Everything is bigint so no value ever passes through a binary float.

export type Rounding = "exact" | "down" | "up";
export type DecimalError = "INVALID_DECIMAL" | "TOO_MANY_DECIMALS";

const DECIMAL_TEXT = /^(-?)(\d+)(?:\.(\d+))?$/;
const MAX_DIGITS = 36;

/**
 * The largest amount of base units storage holds: money columns are numeric(78, 0). Every amount
 * that enters (orders, deposits, withdrawals) is refused beyond it, and the ledger keeps each
 * currency's total within it, so no balance, hold, fee or sum can overflow a column and fail a
 * commit (which would stop the exchange).
 */
export const MAX_STORED_UNITS = 10n ** 78n - 1n;
const powers: bigint[] = [];

export function pow10(exponent: number): bigint {
  if (!Number.isInteger(exponent) || exponent < 0 || exponent > 2 * MAX_DIGITS) {
    throw new RangeError(`pow10: exponent ${exponent} out of range`);
  }
  powers[exponent] ??= 10n ** BigInt(exponent);
  return powers[exponent];
}

export function assertDigits(digits: number, what: string): void {
  if (!Number.isInteger(digits) || digits < 0 || digits > MAX_DIGITS) {
    throw new RangeError(`${what} must be an integer in [0, ${MAX_DIGITS}], got ${digits}`);
  }
}

/**
 * Parses "123.45" into units of 10^-digits. Rounding "down"/"up" are floor/ceil,
 * so callers pick the direction that favours the exchange; "exact" refuses to round.
 */
export function parseUnits(text: string, digits: number, rounding: Rounding = "exact"): Result<bigint, DecimalError> {
  assertDigits(digits, "digits");
  const match = DECIMAL_TEXT.exec(text);
  if (match === null) return fail("INVALID_DECIMAL", `not a plain decimal number: ${JSON.stringify(text)}`);
  const [, sign, whole, fraction = ""] = match;
  const kept = fraction.slice(0, digits).padEnd(digits, "0");
  const dropped = fraction.slice(digits);
  const droppedNonZero = /[1-9]/.test(dropped);
  if (droppedNonZero && rounding === "exact") {
    return fail("TOO_MANY_DECIMALS", `${text} has more than ${digits} fractional digits`);
  }
  const negative = sign === "-";
  let magnitude = BigInt(whole + kept);
  // Floor of a negative number moves away from zero, ceil of a positive one too.
  if (droppedNonZero && (rounding === "up") !== negative) magnitude += 1n;
  return ok(negative ? -magnitude : magnitude);
}

/** Formats units of 10^-digits as decimal text; trimZeros drops trailing fractional zeros. */
export function formatUnits(units: bigint, digits: number, options: { trimZeros?: boolean } = {}): string {
  assertDigits(digits, "digits");
  const negative = units < 0n;
  const text = (negative ? -units : units).toString().padStart(digits + 1, "0");
  const whole = text.slice(0, text.length - digits);
  let fraction = text.slice(text.length - digits);
  if (options.trimZeros) fraction = fraction.replace(/0+$/, "");
  return (negative ? "-" : "") + whole + (fraction.length > 0 ? `.${fraction}` : "");
}

/** floor(numerator / denominator) for a positive denominator; bigint division truncates toward zero. */
export function floorDiv(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  return numerator % denominator !== 0n && numerator < 0n ? quotient - 1n : quotient;
}

/** ceil(numerator / denominator) for a positive denominator. */
export function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  return numerator % denominator !== 0n && numerator > 0n ? quotient + 1n : quotient;
}
