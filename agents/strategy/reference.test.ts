import { describe, expect, it } from "vitest";
import {
  coveringFlag,
  followsMove,
  moveSeen,
  type PoolReference,
  poolReference,
  pushPrice,
  referenceAnswer,
  twap,
} from "./reference.ts";
import type { ActionView, PricePoint } from "./types.ts";

const ZERO = "0x0000000000000000000000000000000000000000" as const;
const at = (block: number, time: number, price: bigint): PricePoint => ({ block: BigInt(block), time, price });

const action = (over: Partial<ActionView>): ActionView => ({
  entryId: 1n,
  targetNftId: 7n,
  tier: "scout",
  sourceAgentId: 11n,
  operator: ZERO,
  actionType: "flag",
  payload: {},
  reasonCode: "REFERENCE_MOVE",
  isOverride: false,
  time: 1_000,
  block: 1n,
  txHash: "0x01",
  ...over,
});

describe("twap", () => {
  it("weighs each price by the seconds it stood, the last until now, the one before the window from its start", () => {
    // 100 stood from before the window (counts 400..500), 200 for 100 s, 400 for the last 300 s.
    const prices = [at(1, 0, 100n), at(2, 500, 200n), at(3, 600, 400n)];
    expect(twap(prices, 400, 900)).toEqual({ price: (100n * 100n + 200n * 100n + 400n * 300n) / 500n, blocks: 3 });
    // The part of the window the history does not cover does not count; none covered: undefined.
    expect(twap(prices, -1_000, 100)).toEqual({ price: 100n, blocks: 1 });
    expect(twap(prices, -1_000, 0)).toBeUndefined();
    expect(twap([], 0, 10)).toBeUndefined();
  });

  it("a price that stood for no time weighs nothing and is not a block of the reference", () => {
    // A push to 10x, 300 dust points and the pull back in blocks of their own, all in one second.
    const prices = [at(1, 0, 100n)];
    for (let i = 0; i < 300; i++) prices.push(at(2 + i, 100, 1_000n));
    prices.push(at(400, 100, 100n));
    expect(twap(prices, 0, 700)).toEqual({ price: 100n, blocks: 2 });
  });
});

describe("pushPrice", () => {
  it("keeps one point per block, its last price: a push, 300 dust buys and a pull back in one block leave the pull back", () => {
    const prices: PricePoint[] = [at(1, 0, 100n)];
    pushPrice(prices, at(2, 12, 130n));
    for (let i = 0; i < 300; i++) pushPrice(prices, at(2, 12, 131n));
    pushPrice(prices, at(2, 12, 100n));
    pushPrice(prices, at(3, 24, 101n));
    expect(prices).toEqual([at(1, 0, 100n), at(2, 12, 100n), at(3, 24, 101n)]);
  });
});

describe("poolReference", () => {
  it("anchors the move on the window before, or on the earliest price when history is shorter", () => {
    const prices = [at(1, 0, 100n), at(2, 600, 110n)];
    const ref = poolReference(prices, 1_200, 600)!;
    expect(ref).toEqual({ price: 110n, blocks: 1, anchor: 100n, moveBps: 1_000n });
    expect(poolReference([at(1, 1_000, 100n), at(2, 1_100, 120n)], 1_200, 600)).toEqual({
      price: 110n,
      blocks: 2,
      anchor: 100n,
      moveBps: 1_000n,
    });
  });

  it("a trade follows the move when it goes the way the reference moved beyond the limit", () => {
    const rose: PoolReference = { price: 110n, blocks: 5, anchor: 100n, moveBps: 1_000n };
    expect(followsMove(rose, true, 100n)).toBe(true);
    expect(followsMove(rose, false, 100n)).toBe(false);
    expect(followsMove(rose, true, 1_000n)).toBe(false);
    const fell = { ...rose, moveBps: -500n };
    expect(followsMove(fell, false, 100n)).toBe(true);
    expect(followsMove(fell, true, 100n)).toBe(false);
  });
});

describe("moveSeen", () => {
  const ref: PoolReference = { price: 105n, blocks: 5, anchor: 100n, moveBps: 500n };
  const flag = action({ entryId: 4n, payload: { signal: "reference", evidence: { changeBps: 450 } } });
  const answer = action({ entryId: 5n, tier: "queen", actionType: "directive", payload: { cause: "4" } });

  it("needs a scout's reference flag in the window that covers the move, and the queen's answer to it", () => {
    expect(moveSeen([flag], [answer], 7n, ref, 100n, 500)).toBe(true);
    // No answer, or an answer to another entry, or by someone else: not seen.
    expect(moveSeen([flag], [], 7n, ref, 100n, 500)).toBe(false);
    expect(moveSeen([flag], [{ ...answer, payload: { cause: "3" } }], 7n, ref, 100n, 500)).toBe(false);
    expect(moveSeen([flag], [{ ...answer, tier: "scout" }], 7n, ref, 100n, 500)).toBe(false);
    // Another token's flag, an old flag, a flag of the other direction, or one a larger move outgrew.
    expect(moveSeen([{ ...flag, targetNftId: 8n }], [answer], 7n, ref, 100n, 500)).toBe(false);
    expect(moveSeen([flag], [answer], 7n, ref, 100n, 1_001)).toBe(false);
    expect(moveSeen([flag], [answer], 7n, { ...ref, moveBps: -500n }, 100n, 500)).toBe(false);
    expect(moveSeen([flag], [answer], 7n, { ...ref, moveBps: 551n }, 100n, 500)).toBe(false);
    // Only scouts' flags count.
    expect(coveringFlag([{ ...flag, tier: "queen" }], 7n, ref, 100n, 500)).toBeUndefined();
  });
});

describe("referenceAnswer", () => {
  it("widens the band to cover the move's gap and the cap until the window has passed, or pauses beyond ten bands", () => {
    expect(
      referenceAnswer({ bandBps: 300, changeBps: 500, deviationBps: -600, slippageCapBps: 100, windowSec: 600 }, 50),
    ).toEqual({ instruction: "widen_band", bandMultiplier: 3.34, until: 650 });
    expect(referenceAnswer({ bandBps: 300, changeBps: -3_000, slippageCapBps: 100 }, 50)).toEqual({
      instruction: "pause_trading",
      until: 650,
    });
  });
});
