import { describe, expect, it } from "vitest";
import { applyTrade, bucketStart, type Candle } from "./candles.ts";

const base: Candle = {
  time: 1_800_000_000 - (1_800_000_000 % 60),
  open: "1.5",
  max: "1.6",
  min: "1.4",
  close: "1.55",
  volume: "10",
  volumeBase: "6.5",
};

describe("bucketStart", () => {
  it("cuts UTC buckets, months and years by the calendar", () => {
    expect(bucketStart(1_800_000_123, "minute")).toBe(1_800_000_120);
    expect(bucketStart(1_800_000_123, "hour4") % 14_400).toBe(0);
    // 2027-01-15T08:00:00Z
    const t = Date.UTC(2027, 0, 15, 8) / 1000;
    expect(bucketStart(t, "month")).toBe(Date.UTC(2027, 0, 1) / 1000);
    expect(bucketStart(t, "year")).toBe(Date.UTC(2027, 0, 1) / 1000);
    expect(bucketStart(Date.UTC(2027, 5, 30, 23) / 1000, "month")).toBe(Date.UTC(2027, 5, 1) / 1000);
  });
});

describe("applyTrade", () => {
  it("moves the newest candle's close, extremes and volumes exactly", () => {
    const higher = applyTrade(
      [base],
      { time: base.time + 30, price: "1.7", amount: "0.1", quoteAmount: "0.17" },
      "minute",
    );
    expect(higher).toEqual([{ ...base, max: "1.7", close: "1.7", volume: "10.17", volumeBase: "6.6" }]);
    const lower = applyTrade(
      higher,
      { time: base.time + 59, price: "1.39", amount: "1", quoteAmount: "1.39" },
      "minute",
    );
    expect(lower[0]).toMatchObject({ open: "1.5", max: "1.7", min: "1.39", close: "1.39", volume: "11.56" });
  });

  it("opens a new candle for a trade in a later bucket", () => {
    const next = applyTrade([base], { time: base.time + 61, price: "2", amount: "3", quoteAmount: "6" }, "minute");
    expect(next).toHaveLength(2);
    expect(next[1]).toEqual({
      time: base.time + 60,
      open: "2",
      max: "2",
      min: "2",
      close: "2",
      volume: "6",
      volumeBase: "3",
    });
  });

  it("starts the first candle of an empty chart", () => {
    expect(applyTrade([], { time: base.time + 5, price: "1", amount: "1", quoteAmount: "1" }, "minute")[0]!.time).toBe(
      base.time,
    );
  });

  it("leaves the chart as it is for a trade older than its newest candle", () => {
    const candles = [base];
    expect(applyTrade(candles, { time: base.time - 1, price: "9", amount: "1", quoteAmount: "9" }, "minute")).toEqual(
      candles,
    );
  });

  it("compares prices as decimals, not text", () => {
    const c = { ...base, max: "9.5", min: "9.5", close: "9.5", open: "9.5" };
    expect(applyTrade([c], { time: c.time, price: "10", amount: "1", quoteAmount: "10" }, "minute")[0]!.max).toBe("10");
  });
});
