import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  applySwap,
  BPS,
  impactBps,
  inputToReach,
  maxInputWithinCap,
  minOutWithinCap,
  moveBps,
  type PoolReserves,
  quote,
  spotPrice,
  sqrt,
} from "./pool-math.ts";

const SEED = Number(process.env.POOL_MATH_SEED ?? 20261124);
console.log(`pool math property test: POOL_MATH_SEED=${SEED}`);

const pool: PoolReserves = {
  reserveToken: 1_000_000_000n * 10n ** 18n,
  reservePair: 0n,
  virtualPair: 10_000n * 10n ** 6n,
  feePips: 3_000n,
};

const arbPool = fc.record({
  reserveToken: fc.bigInt({ min: 10n ** 12n, max: 10n ** 30n }),
  reservePair: fc.bigInt({ min: 0n, max: 10n ** 24n }),
  virtualPair: fc.bigInt({ min: 10n ** 6n, max: 10n ** 24n }),
  feePips: fc.bigInt({ min: 0n, max: 30_000n }),
});

describe("pool math", () => {
  it("quotes as PoolMath: fee rounded up, output rounded down", () => {
    const q = quote(pool, true, 1_000_000n);
    expect(q.fee).toBe(3_000n);
    expect(q.amountOut).toBe((997_000n * pool.reserveToken) / (pool.virtualPair + 997_000n));
  });

  it("a trade at the cap's largest input passes its own guard and stays within the cap", () => {
    fc.assert(
      fc.property(arbPool, fc.boolean(), fc.integer({ min: 1, max: 5_000 }), (p, isBuy, cap) => {
        const capBps = BigInt(cap);
        const amountIn = maxInputWithinCap(p, isBuy, capBps);
        fc.pre(amountIn > 0n);
        const out = quote(p, isBuy, amountIn).amountOut;
        const guard = minOutWithinCap(p, isBuy, amountIn, capBps);
        // Within one base unit of rounding at the exact edge; a worker keeps headroom below it.
        expect(out + 1n).toBeGreaterThanOrEqual(guard);
        expect(impactBps(p, isBuy, amountIn, out)).toBeLessThanOrEqual(capBps + 1n);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it("the guard rejects any output whose impact is beyond the cap", () => {
    fc.assert(
      fc.property(
        arbPool,
        fc.boolean(),
        fc.bigInt({ min: 1n, max: 10n ** 24n }),
        fc.integer({ min: 1, max: 9_999 }),
        (p, isBuy, amountIn, cap) => {
          const capBps = BigInt(cap);
          const guard = minOutWithinCap(p, isBuy, amountIn, capBps);
          fc.pre(guard > 0n);
          // The least output the pool may give under this guard has impact within the cap (+ rounding).
          expect(impactBps(p, isBuy, amountIn, guard)).toBeLessThanOrEqual(capBps + 1n);
        },
      ),
      { seed: SEED, numRuns: 500 },
    );
  });

  it("inputToReach moves the price to the target within a fee's width", () => {
    fc.assert(
      fc.property(arbPool, fc.integer({ min: -5_000, max: 20_000 }), (p, moveTarget) => {
        const price = spotPrice(p);
        fc.pre(price > 1000n);
        const target = (price * (BPS + BigInt(moveTarget))) / BPS;
        const { isBuy, amountIn } = inputToReach(p, target);
        fc.pre(amountIn > 0n);
        const out = quote(p, isBuy, amountIn).amountOut;
        fc.pre(out < (isBuy ? p.reserveToken : p.reservePair + p.virtualPair));
        const after = spotPrice(applySwap(p, isBuy, amountIn, out));
        // The fee is not traded, so the price stops a little short of the target.
        const miss = moveBps(target, after);
        const short = isBuy ? -miss : miss;
        expect(short).toBeGreaterThanOrEqual(-1n);
        expect(short).toBeLessThanOrEqual(p.feePips / 50n + 2n);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it("sqrt is the integer floor square root", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 80n }), (n) => {
        const r = sqrt(n);
        expect(r * r <= n && (r + 1n) * (r + 1n) > n).toBe(true);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });
});
