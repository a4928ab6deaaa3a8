import { fail, ok, type Result } from "../result.ts";
import { ceilDiv, parseUnits, pow10 } from "./decimal.ts";

/** An exact fraction numerator / 10^scale, e.g. a commission "0.001" is 1 / 10^3. */
export interface Rate {
  readonly numerator: bigint;
  readonly scale: number;
}

export const ZERO_RATE: Rate = { numerator: 0n, scale: 0 };

/** Parses a fraction in [0, 1] written as decimal text, keeping every digit it was given. */
export function parseRate(text: string): Result<Rate, "INVALID_RATE"> {
  const scale = text.includes(".") ? text.length - text.indexOf(".") - 1 : 0;
  const parsed = scale <= 36 ? parseUnits(text, scale) : undefined;
  if (parsed === undefined || !parsed.ok)
    return fail("INVALID_RATE", `not a decimal fraction: ${JSON.stringify(text)}`);
  if (parsed.value < 0n || parsed.value > pow10(scale)) return fail("INVALID_RATE", `rate ${text} is outside [0, 1]`);
  return ok({ numerator: parsed.value, scale });
}

/** amount x rate rounded up: a fee rounded in the exchange's favour. */
export function applyRateRoundingUp(amount: bigint, rate: Rate): bigint {
  return ceilDiv(amount * rate.numerator, pow10(rate.scale));
}
