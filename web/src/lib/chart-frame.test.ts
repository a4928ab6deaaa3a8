import { describe, expect, it } from "vitest";
import { chartFrame, MIN_SLOTS, reframes } from "./chart-frame.ts";

describe("chartFrame", () => {
  it("lays few candles out from the left at the width of MIN_SLOTS, fits many", () => {
    expect(chartFrame(1)).toEqual({ kind: "range", from: -2, to: MIN_SLOTS - 2 });
    expect(chartFrame(MIN_SLOTS - 1)).toEqual({ kind: "range", from: -2, to: MIN_SLOTS - 2 });
    expect(chartFrame(MIN_SLOTS)).toEqual({ kind: "fit" });
    expect(chartFrame(300)).toEqual({ kind: "fit" });
  });
});

describe("reframes", () => {
  it("frames a first or a new series, never an empty one", () => {
    expect(reframes(null, { count: 3, first: 60 })).toBe(true);
    expect(reframes({ count: 300, first: 60 }, { count: 300, first: 3600 })).toBe(true);
    expect(reframes(null, { count: 0, first: 0 })).toBe(false);
  });
  it("follows new candles while they are few, then keeps what the person scrolled to", () => {
    expect(reframes({ count: 3, first: 60 }, { count: 4, first: 60 })).toBe(true);
    expect(reframes({ count: 3, first: 60 }, { count: 3, first: 60 })).toBe(false);
    expect(reframes({ count: MIN_SLOTS - 1, first: 60 }, { count: MIN_SLOTS, first: 60 })).toBe(true);
    expect(reframes({ count: MIN_SLOTS, first: 60 }, { count: MIN_SLOTS + 1, first: 60 })).toBe(false);
  });
});
