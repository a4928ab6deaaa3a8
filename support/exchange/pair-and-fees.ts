import type { PairFees } from "../../exchange/core/ledger/index.ts";
import { definePair, type PairSpec, type Rate } from "../../exchange/core/money/index.ts";

/** AGT/USD with small decimals so amounts stay readable: 1 lot = 100 AGT units, 1 tick x 1 lot = 100 USD units. */
export const AGT = { code: "AGT", decimals: 4 } as const;
export const USD = { code: "USD", decimals: 6 } as const;

export function testPair(minQuoteAmount: string | null = null): PairSpec {
  const pair = definePair({ code: "AGT_USD", base: AGT, quote: USD, digitsPrice: 2, digitsAmount: 2, minQuoteAmount });
  if (!pair.ok) throw new Error(pair.message);
  return pair.value;
}

export const rate = (numerator: bigint, scale: number): Rate => ({ numerator, scale });

/** A different rate for every role and currency, so a fee charged by the wrong rule shows; a 5-unit minimum on base fees. */
export const testFees: PairFees = {
  maker: { base: { rate: rate(1n, 3), minimum: 5n }, quote: { rate: rate(15n, 4), minimum: 0n } },
  taker: { base: { rate: rate(2n, 3), minimum: 5n }, quote: { rate: rate(25n, 4), minimum: 0n } },
};
