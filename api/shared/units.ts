import { formatUnits } from "viem";
import type { PoolSide } from "../../indexer/enums.ts";

/**
 * Exact money at the edge: base-unit bigints in, decimal strings out, never a float.
 */

export const TOKEN_DECIMALS = 18;

/** Decimals of each pool's pair asset: the stable token and the wrapped native token. */
export const PAIR_DECIMALS: Readonly<Record<PoolSide, number>> = { STABLE: 6, WRAPPED_NATIVE: 18 };

/** Fractional digits of a pool price. */
export const PRICE_DIGITS = 18;

export function pairDecimalsOf(side: string): number {
  const decimals = PAIR_DECIMALS[side as PoolSide];
  if (decimals === undefined) throw new Error(`unknown pool side ${side}`);
  return decimals;
}

/** Whole units, shortest exact form: 1500000n at 6 decimals is "1.5". */
export const formatAmount = (value: bigint, decimals: number) => formatUnits(value, decimals);

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
export function poolPrice(reserveToken: bigint, reservePair: bigint, virtualPair: bigint, pairDecimals: number): string | null {
  if (reserveToken <= 0n) return null;
  const scaled = ((reservePair + virtualPair) * 10n ** BigInt(TOKEN_DECIMALS + PRICE_DIGITS)) / (reserveToken * 10n ** BigInt(pairDecimals));
  return formatFixed(scaled, PRICE_DIGITS);
}
