import { describe, expect, it } from "vitest";
import type { Candle } from "./candles.ts";
import { priceChanges } from "./price-change.ts";

const candle = (time: number, open: string, close: string): Candle => ({
  time,
  open,
  close,
  max: open > close ? open : close,
  min: open > close ? close : open,
  volume: "1",
  volumeBase: "1",
});

describe("priceChanges", () => {
  const now = 1_800_000_000 - (1_800_000_000 % 60) + 30;
  it("compares the last trade with the close before each window", () => {
    const candles = [
      candle(now - 30 - 7200, "1", "1"), // before 1h
      candle(now - 30 - 600, "1.5", "2"), // before 5m, inside 1h
      candle(now - 30, "2", "2.2"),
    ];
    expect(priceChanges(candles, now)).toEqual({ "5m": "+10%", "1h": "+120%", "6h": "+120%", "24h": "+120%" });
  });
  it("uses the first trade's open when nothing traded before the window, null without trades", () => {
    expect(priceChanges([candle(now - 30, "0.000000100", "0.000000050")], now)["24h"]).toBe("-50%");
    expect(priceChanges([], now)["5m"]).toBeNull();
  });
});
