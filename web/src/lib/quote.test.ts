import { describe, expect, it } from "vitest";
import { getAmountOut, minimumOut, quoteSwap } from "./quote.ts";

// Vectors of contracts/test/PoolMath.t.sol and hand-checked ones; the same function is compared
// with the deployed pool's quote() over random sizes in test/contracts/web-quote.test.ts.
describe("getAmountOut (PoolMath.getAmountOut)", () => {
  it("matches PoolMath.t.sol's worked example: fee ceil(1000 x 0.3%) = 3, out 996", () => {
    expect(getAmountOut(1000n, 1_000_000n, 1_000_000n, 3000n)).toEqual({ ok: true, amountOut: 996n, fee: 3n });
  });
  it("rounds the fee up and the output down", () => {
    // fee = ceil(1 x 3000 / 1e6) = 1: a 1-unit input is all fee.
    expect(getAmountOut(1n, 10n ** 18n, 10n ** 18n, 3000n)).toEqual({ ok: true, amountOut: 0n, fee: 1n });
    // in' = 999_999 - 3000 = 996_999; out = floor(996_999 x 5e6 / (2e6 + 996_999)) = 1_663_328
    expect(getAmountOut(999_999n, 2_000_000n, 5_000_000n, 3000n)).toEqual({
      ok: true,
      amountOut: 1_663_328n,
      fee: 3000n,
    });
  });
  it("refuses what the contract refuses", () => {
    expect(getAmountOut(0n, 1n, 1n, 3000n)).toEqual({ ok: false, error: "ZERO_AMOUNT" });
    expect(getAmountOut(1n, 0n, 1n, 3000n)).toEqual({ ok: false, error: "EMPTY_RESERVES" });
    expect(getAmountOut(1n, 1n, 1n, 1_000_000n)).toEqual({ ok: false, error: "INVALID_FEE" });
  });
});

describe("quoteSwap (AgentPool._quote)", () => {
  const pool = { token: 1_000_000_000n * 10n ** 18n, pair: 0n, virtualPair: 10_000n * 10n ** 6n, feePips: 3000n };
  it("prices a buy against the real plus the virtual pair reserve", () => {
    const amountIn = 100n * 10n ** 6n;
    const fee = 300_000n;
    const expected = ((amountIn - fee) * pool.token) / (pool.virtualPair + amountIn - fee);
    expect(quoteSwap(true, amountIn, pool)).toEqual({ ok: true, amountOut: expected, fee });
  });
  it("refuses a sell paying out more than the real pair reserve", () => {
    expect(quoteSwap(false, 10n ** 24n, { ...pool, pair: 1_000n })).toEqual({
      ok: false,
      error: "INSUFFICIENT_LIQUIDITY",
    });
  });
  it("refuses a dust input swallowed by the fee", () => {
    expect(quoteSwap(true, 1n, pool)).toEqual({ ok: false, error: "ZERO_OUTPUT" });
  });
});

describe("minimumOut", () => {
  it("floors the tolerated output", () => {
    expect(minimumOut(1000n, 50n)).toBe(995n);
    expect(minimumOut(999n, 50n)).toBe(994n); // 994.005 floored
    expect(minimumOut(1000n, 0n)).toBe(1000n);
  });
});
