import { formatUnits } from "viem";
import { CANDLE_PRICE_SCALE } from "../../indexer/candles.ts";
import type { PoolSide } from "../../indexer/enums.ts";

/**
 * Exact money at the edge: base-unit bigints in, decimal strings out, never a float.
 */

export const TOKEN_DECIMALS = 18;

/** Decimals of each pool's pair asset: the stable token and the wrapped native token. */
export const PAIR_DECIMALS: Readonly<Record<PoolSide, number>> = { STABLE: 6, WRAPPED_NATIVE: 18 };

/** Decimals of the stable token, the common unit of the value fields (tvlStable, volume24hStable). */
export const STABLE_DECIMALS = PAIR_DECIMALS.STABLE;

/** The default reference price of one whole wrapped native token: 2,000 stable tokens (WRAPPED_NATIVE_PRICE). */
export const DEFAULT_WRAPPED_NATIVE_PRICE = 2_000n * 10n ** BigInt(STABLE_DECIMALS);

/** How pair-asset amounts become one unit: stable base units per whole wrapped native token. */
export interface Pricing {
  wrappedNativePrice: bigint;
}

/**
 * A pair-asset amount in stable base units, truncated: stable as is, wrapped native at the
 * reference price. Ranks use the untruncated product (valueScale), so they are exact.
 */
export function valueInStable(amount: bigint, side: string, pricing: Pricing): bigint {
  return (amount * valueScale(side, pricing)) / 10n ** 18n;
}

/** The factor that turns a pair-asset amount into stable base units x 10^18. */
export function valueScale(side: string, pricing: Pricing): bigint {
  if (side === "STABLE") return 10n ** 18n;
  if (side === "WRAPPED_NATIVE") return pricing.wrappedNativePrice;
  throw new Error(`unknown pool side ${side}`);
}

/** Fractional digits of a pool price. */
export const PRICE_DIGITS = 18;

export function pairDecimalsOf(side: string): number {
  const decimals = PAIR_DECIMALS[side as PoolSide];
  if (decimals === undefined) throw new Error(`unknown pool side ${side}`);
  return decimals;
}

/** Whole units, shortest exact form: 1500000n at 6 decimals is "1.5". */
export const formatAmount = (value: bigint, decimals: number) => formatUnits(value, decimals);

/**
 * Whole units as a JSON number, where SPEC.md types an amount as a number (vote weights, the
 * tally): the double nearest the exact decimal (formatAmount), so whole-token amounts up to
 * 2^53 are exact and finer ones are off by at most half a unit in the last place.
 */
export const wholeUnitsNumber = (value: bigint, decimals: number = TOKEN_DECIMALS) =>
  Number(formatAmount(value, decimals));

/** Whole units with exactly `digits` fractional digits: 1500000n, 6 is "1.500000". */
export function formatFixed(value: bigint, digits: number): string {
  const negative = value < 0n;
  const text = (negative ? -value : value).toString().padStart(digits + 1, "0");
  const whole = text.slice(0, text.length - digits);
  const fraction = text.slice(text.length - digits);
  return `${negative ? "-" : ""}${whole}${digits > 0 ? `.${fraction}` : ""}`;
}

/**
 * A pool's price in pair-asset units per whole token, the price the pool quotes:
 * (reservePair + virtualPair) / reserveToken, truncated to PRICE_DIGITS fractional digits.
 * Null for a pool without tokens (it has no price).
 */
export function poolPrice(
  reserveToken: bigint,
  reservePair: bigint,
  virtualPair: bigint,
  pairDecimals: number,
): string | null {
  if (reserveToken <= 0n) return null;
  const scaled =
    ((reservePair + virtualPair) * 10n ** BigInt(TOKEN_DECIMALS + PRICE_DIGITS)) /
    (reserveToken * 10n ** BigInt(pairDecimals));
  return formatFixed(scaled, PRICE_DIGITS);
}

/**
 * A price as the candle rollup stores it (pair-asset base units per token base unit x
 * CANDLE_PRICE_SCALE, indexer/candles.ts) in pair-asset units per whole token, the pool price's
 * format: PRICE_DIGITS fractional digits, truncated once (the stored value was truncated at a
 * finer scale, and floor(floor(x) / n) = floor(x / n)).
 */
export function scaledPrice(price: bigint, pairDecimals: number): string {
  return formatFixed(
    (price * 10n ** BigInt(TOKEN_DECIMALS + PRICE_DIGITS)) / (CANDLE_PRICE_SCALE * 10n ** BigInt(pairDecimals)),
    PRICE_DIGITS,
  );
}
