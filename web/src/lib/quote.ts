/**
 * The pool's exact-in quote, in base units, as contracts/AgentPool.sol `_quote` and
 * contracts/libraries/PoolMath.sol `getAmountOut` compute it: fee = ceil(in x feePips / 1e6),
 * out = floor((in - fee) x reserveOut / (reserveIn + in - fee)). A buy prices against the real
 * plus the virtual pair reserve; a sell may pay out only the real pair reserve. The page shows
 * this before the wallet signs; the contract's own check (minAmountOut) stays the guard.
 */

export const FEE_DENOMINATOR = 1_000_000n;

export interface PoolReserves {
  /** Tokens the pool holds (base units). */
  token: bigint;
  /** Real pair-asset reserve (base units). */
  pair: bigint;
  /** Virtual pair reserve: price support, never paid out. */
  virtualPair: bigint;
  /** Fee in pips (3000 = 0.30%). */
  feePips: bigint;
}

export type QuoteError = "ZERO_AMOUNT" | "EMPTY_RESERVES" | "INVALID_FEE" | "INSUFFICIENT_LIQUIDITY" | "ZERO_OUTPUT";

export type Quote = { ok: true; amountOut: bigint; fee: bigint } | { ok: false; error: QuoteError };

function mulDiv(a: bigint, b: bigint, d: bigint, roundUp = false): bigint {
  const product = a * b;
  const q = product / d;
  return roundUp && q * d !== product ? q + 1n : q;
}

/** PoolMath.getAmountOut. */
export function getAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint, feePips: bigint): Quote {
  if (amountIn === 0n) return { ok: false, error: "ZERO_AMOUNT" };
  if (reserveIn === 0n || reserveOut === 0n) return { ok: false, error: "EMPTY_RESERVES" };
  if (feePips >= FEE_DENOMINATOR) return { ok: false, error: "INVALID_FEE" };
  const fee = mulDiv(amountIn, feePips, FEE_DENOMINATOR, true);
  const afterFee = amountIn - fee;
  return { ok: true, amountOut: mulDiv(afterFee, reserveOut, reserveIn + afterFee), fee };
}

/** AgentPool._quote: `isBuy` pays the pair asset in for tokens; a sell pays tokens in. */
export function quoteSwap(isBuy: boolean, amountIn: bigint, pool: PoolReserves): Quote {
  const effectivePair = pool.pair + pool.virtualPair;
  const quote = isBuy
    ? getAmountOut(amountIn, effectivePair, pool.token, pool.feePips)
    : getAmountOut(amountIn, pool.token, effectivePair, pool.feePips);
  if (!quote.ok) return quote;
  if (!isBuy && quote.amountOut > pool.pair) return { ok: false, error: "INSUFFICIENT_LIQUIDITY" };
  if (quote.amountOut === 0n) return { ok: false, error: "ZERO_OUTPUT" };
  return quote;
}

/** The least output accepted at `slippageBps` (floor, so the tolerance is never exceeded). */
export function minimumOut(amountOut: bigint, slippageBps: bigint): bigint {
  return (amountOut * (10_000n - slippageBps)) / 10_000n;
}

export const QUOTE_ERROR_TEXT: Record<QuoteError, string> = {
  ZERO_AMOUNT: "Enter an amount above zero",
  EMPTY_RESERVES: "The pool holds nothing to trade against",
  INVALID_FEE: "The pool's fee is invalid",
  INSUFFICIENT_LIQUIDITY: "The pool holds too little to pay this out: sell less",
  ZERO_OUTPUT: "Too small: the fee would take it all",
};
