import { fail, ok, type Result } from "../result.ts";
import { formatUnits, MAX_STORED_UNITS, parseUnits, pow10, type DecimalError, type Rounding } from "./decimal.ts";

// The one place where decimal text, engine ticks/lots and ledger base units meet.
//   price  = ticks x 10^-digitsPrice          (quote per one base)
//   amount = lots  x 10^-digitsAmount         (base)
//   base units of a fill  = lots x 10^(base.decimals - digitsAmount)
//   quote units of a fill = ticks x lots x 10^(quote.decimals - digitsPrice - digitsAmount)
// definePair refuses settings under which either exponent would be negative, so every
// fill converts to whole base units of both currencies with no rounding at all.

export interface CurrencySpec {
  readonly code: string;
  /** Base units per whole coin, as a power of ten (18 for an ERC-20 like the agent tokens). */
  readonly decimals: number;
}

export interface PairSpec {
  /** "<base>_<quote>", as SPEC.md's pair code. */
  readonly code: string;
  readonly base: CurrencySpec;
  readonly quote: CurrencySpec;
  readonly digitsPrice: number;
  readonly digitsAmount: number;
  /** Smallest order value in quote base units; null when there is no minimum. */
  readonly minQuoteAmount: bigint | null;
}

export interface PairSettings {
  readonly code: string;
  readonly base: CurrencySpec;
  readonly quote: CurrencySpec;
  readonly digitsPrice: number;
  readonly digitsAmount: number;
  readonly minQuoteAmount?: string | null;
}

export type ConversionError = DecimalError | "OUT_OF_RANGE";

const MAX_DIGITS = 18;
const MAX_DECIMALS = 36;

export function definePair(settings: PairSettings): Result<PairSpec, "INVALID_PAIR"> {
  const { code, base, quote, digitsPrice, digitsAmount } = settings;
  const problems: string[] = [];
  if (code !== `${base.code}_${quote.code}`) problems.push(`code ${code} is not ${base.code}_${quote.code}`);
  for (const [name, value, max] of [
    ["digitsPrice", digitsPrice, MAX_DIGITS],
    ["digitsAmount", digitsAmount, MAX_DIGITS],
    [`${base.code} decimals`, base.decimals, MAX_DECIMALS],
    [`${quote.code} decimals`, quote.decimals, MAX_DECIMALS],
  ] as const) {
    if (!Number.isInteger(value) || value < 0 || value > max)
      problems.push(`${name} must be an integer in [0, ${max}]`);
  }
  if (problems.length === 0) {
    if (digitsAmount > base.decimals) {
      problems.push(`digitsAmount ${digitsAmount} is finer than ${base.code}'s ${base.decimals} decimals`);
    }
    if (digitsPrice + digitsAmount > quote.decimals) {
      problems.push(
        `digitsPrice + digitsAmount (${digitsPrice + digitsAmount}) is finer than ${quote.code}'s ${quote.decimals} decimals`,
      );
    }
  }
  let minQuoteAmount: bigint | null = null;
  if (problems.length === 0 && settings.minQuoteAmount != null) {
    const parsed = parseUnits(settings.minQuoteAmount, quote.decimals);
    if (!parsed.ok || parsed.value < 0n)
      problems.push(`minQuoteAmount ${settings.minQuoteAmount} is not a valid ${quote.code} amount`);
    else minQuoteAmount = parsed.value;
  }
  if (problems.length > 0) return fail("INVALID_PAIR", `pair ${code}: ${problems.join("; ")}`);
  return ok({ code, base, quote, digitsPrice, digitsAmount, minQuoteAmount });
}

/** Decimal price text to ticks; "exact" refuses a price off the pair's tick grid. */
export function parsePrice(
  text: string,
  pair: PairSpec,
  rounding: Rounding = "exact",
): Result<number, ConversionError> {
  return toSafeInteger(parseUnits(text, pair.digitsPrice, rounding), text);
}

/** Decimal amount text (base currency) to lots. */
export function parseAmount(
  text: string,
  pair: PairSpec,
  rounding: Rounding = "exact",
): Result<number, ConversionError> {
  return toSafeInteger(parseUnits(text, pair.digitsAmount, rounding), text);
}

export function formatPrice(ticks: number | bigint, pair: PairSpec): string {
  return formatUnits(BigInt(ticks), pair.digitsPrice);
}

export function formatAmount(lots: number | bigint, pair: PairSpec): string {
  return formatUnits(BigInt(lots), pair.digitsAmount);
}

export function baseUnitsOfLots(lots: number | bigint, pair: PairSpec): bigint {
  return BigInt(lots) * pow10(pair.base.decimals - pair.digitsAmount);
}

/** Quote base units of price x amount; exact by definePair's rule. */
export function quoteUnitsOf(ticks: number | bigint, lots: number | bigint, pair: PairSpec): bigint {
  return BigInt(ticks) * BigInt(lots) * quoteUnitsPerTickLot(pair);
}

/** A quote amount as a matching budget in tick-lot units, rounded down so it never exceeds the amount. */
export function tickLotsOfQuoteUnits(quoteUnits: bigint, pair: PairSpec): bigint {
  return quoteUnits / quoteUnitsPerTickLot(pair);
}

/** Decimal text to base units, refusing what a numeric(78, 0) column could not store (OUT_OF_RANGE). */
export function parseCurrencyUnits(
  text: string,
  currency: CurrencySpec,
  rounding: Rounding = "exact",
): Result<bigint, ConversionError> {
  const parsed = parseUnits(text, currency.decimals, rounding);
  if (parsed.ok && (parsed.value > MAX_STORED_UNITS || parsed.value < -MAX_STORED_UNITS)) {
    return fail(
      "OUT_OF_RANGE",
      `${text} ${currency.code} is more than the ${MAX_STORED_UNITS_TEXT} base units an amount can hold`,
    );
  }
  return parsed;
}

const MAX_STORED_UNITS_TEXT = "10^78 - 1";

export function formatCurrencyUnits(units: bigint, currency: CurrencySpec): string {
  return formatUnits(units, currency.decimals);
}

function quoteUnitsPerTickLot(pair: PairSpec): bigint {
  return pow10(pair.quote.decimals - pair.digitsPrice - pair.digitsAmount);
}

function toSafeInteger(parsed: Result<bigint, DecimalError>, text: string): Result<number, ConversionError> {
  if (!parsed.ok) return parsed;
  if (parsed.value < 0n || parsed.value > BigInt(Number.MAX_SAFE_INTEGER)) {
    return fail("OUT_OF_RANGE", `${text} is negative or too large for this pair's precision`);
  }
  return ok(Number(parsed.value));
}
