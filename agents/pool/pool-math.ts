/**
 * The agent pools' arithmetic in exact integers, as AgentPool and PoolMath compute it on-chain, and
 * the slippage rule every agent trade obeys. Price impact is measured against the spot price
 * after the pool's fee: a trade of `amountIn` whose input after fee is `a` would get
 * `a * reserveOut / reserveIn` at the spot price and gets `a * reserveOut / (reserveIn + a)`, so
 * its impact is `a / (reserveIn + a)`. The fee is a known, separate cost, not slippage.
 */

export const BPS = 10_000n;
export const FEE_DENOMINATOR = 1_000_000n;
/** Prices are pair-asset base units per agent-token base unit, scaled by 10^36 (a 6-decimal pair
 * asset against an 18-decimal token needs the room: 10^18 would leave two significant digits). */
export const PRICE_SCALE = 10n ** 36n;

export interface PoolReserves {
  readonly reserveToken: bigint;
  readonly reservePair: bigint;
  readonly virtualPair: bigint;
  readonly feePips: bigint;
}

/** `isBuy`: pair asset in, agent token out (as the pool's Swap event says). */
export interface SwapQuote {
  readonly amountOut: bigint;
  readonly fee: bigint;
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/** PoolMath.getAmountOut: the fee rounds up, the output down. */
export function amountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint, feePips: bigint): SwapQuote {
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n) return { amountOut: 0n, fee: 0n };
  const fee = ceilDiv(amountIn * feePips, FEE_DENOMINATOR);
  const after = amountIn - fee;
  return { amountOut: (after * reserveOut) / (reserveIn + after), fee };
}

/** The reserves a swap of `isBuy` direction trades against: (in, out). */
export function sides(pool: PoolReserves, isBuy: boolean): { reserveIn: bigint; reserveOut: bigint } {
  const effectivePair = pool.reservePair + pool.virtualPair;
  return isBuy
    ? { reserveIn: effectivePair, reserveOut: pool.reserveToken }
    : { reserveIn: pool.reserveToken, reserveOut: effectivePair };
}

export function quote(pool: PoolReserves, isBuy: boolean, amountIn: bigint): SwapQuote {
  const { reserveIn, reserveOut } = sides(pool, isBuy);
  return amountOut(amountIn, reserveIn, reserveOut, pool.feePips);
}

/** The reserves after a swap, as AgentPool.swapExactIn leaves them. */
export function applySwap(pool: PoolReserves, isBuy: boolean, amountIn: bigint, out: bigint): PoolReserves {
  return isBuy
    ? { ...pool, reservePair: pool.reservePair + amountIn, reserveToken: pool.reserveToken - out }
    : { ...pool, reserveToken: pool.reserveToken + amountIn, reservePair: pool.reservePair - out };
}

/** Spot price, pair per token, x PRICE_SCALE (0 for an empty pool). */
export function spotPrice(pool: PoolReserves): bigint {
  if (pool.reserveToken === 0n) return 0n;
  return ((pool.reservePair + pool.virtualPair) * PRICE_SCALE) / pool.reserveToken;
}

/** Signed move from `from` to `to` in basis points (rounded toward zero). */
export function moveBps(from: bigint, to: bigint): bigint {
  if (from === 0n) return 0n;
  return ((to - from) * BPS) / from;
}

/**
 * The largest input whose price impact stays within `capBps`: the input after fee `a` must
 * satisfy a / (reserveIn + a) <= cap, so a <= reserveIn * cap / (1 - cap). Rounded down, and the
 * fee (rounded up on-chain) is added back so that the input after fee is still within that bound.
 */
export function maxInputWithinCap(pool: PoolReserves, isBuy: boolean, capBps: bigint): bigint {
  if (capBps <= 0n) return 0n;
  if (capBps >= BPS) return (1n << 255n) - 1n;
  const { reserveIn } = sides(pool, isBuy);
  const maxAfterFee = (reserveIn * capBps) / (BPS - capBps);
  // amountIn - ceil(amountIn * f / D) <= maxAfterFee  <=  amountIn <= maxAfterFee * D / (D - f).
  return (maxAfterFee * FEE_DENOMINATOR) / (FEE_DENOMINATOR - pool.feePips);
}

/**
 * The minimum-out guard for `amountIn` under `capBps`: what the spot price gives for the input
 * after fee, less the cap. The pool reverts a swap whose output is lower, so no executed swap
 * with this guard has an impact beyond the cap, whatever happened to the pool in between.
 */
export function minOutWithinCap(pool: PoolReserves, isBuy: boolean, amountIn: bigint, capBps: bigint): bigint {
  const { reserveIn, reserveOut } = sides(pool, isBuy);
  if (reserveIn === 0n) return 0n;
  const after = amountIn - ceilDiv(amountIn * pool.feePips, FEE_DENOMINATOR);
  const atSpot = (after * reserveOut) / reserveIn;
  return ceilDiv(atSpot * (BPS - capBps), BPS);
}

/** Impact of a swap that turned `amountIn` into `out` at `pool` (before it), in bps, rounded up. */
export function impactBps(pool: PoolReserves, isBuy: boolean, amountIn: bigint, out: bigint): bigint {
  const { reserveIn, reserveOut } = sides(pool, isBuy);
  const after = amountIn - ceilDiv(amountIn * pool.feePips, FEE_DENOMINATOR);
  const atSpot = (after * reserveOut) / reserveIn;
  if (atSpot === 0n || out >= atSpot) return 0n;
  return ceilDiv((atSpot - out) * BPS, atSpot);
}

/**
 * The input (pair asset for a buy, tokens for a sell) that moves the spot price to `target`,
 * ignoring the fee's small effect; 0 when the price is already on the target's side.
 * With k = X*Y and X the pair side: price P = X/Y, so at target T, X' = sqrt(k*T).
 */
export function inputToReach(pool: PoolReserves, target: bigint): { isBuy: boolean; amountIn: bigint } {
  const x = pool.reservePair + pool.virtualPair;
  const y = pool.reserveToken;
  const price = spotPrice(pool);
  if (target === price || y === 0n || target <= 0n) return { isBuy: true, amountIn: 0n };
  const k = x * y;
  if (target > price) {
    const x2 = sqrt((k * target) / PRICE_SCALE);
    return { isBuy: true, amountIn: x2 > x ? x2 - x : 0n };
  }
  const y2 = sqrt((k * PRICE_SCALE) / target);
  return { isBuy: false, amountIn: y2 > y ? y2 - y : 0n };
}

export function sqrt(n: bigint): bigint {
  if (n < 0n) throw new RangeError("sqrt of a negative number");
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  // Newton steps from the float estimate, then settle on floor(sqrt(n)).
  for (;;) {
    const next = (x + n / x) >> 1n;
    if (next >= x - 1n && next <= x + 1n) {
      x = next;
      break;
    }
    x = next;
  }
  while (x * x > n) x -= 1n;
  while ((x + 1n) * (x + 1n) <= n) x += 1n;
  return x;
}
