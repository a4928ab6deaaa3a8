import assert from "node:assert/strict";
import fc from "fast-check";
import { describe, it } from "vitest";
import {
  addTrade,
  CANDLE_INTERVALS,
  CANDLE_PRICE_SCALE,
  type CandleTrade,
  candleBucket,
  openCandle,
  tradePrice,
} from "./candles.ts";

const SEED = Number(process.env.FC_SEED ?? 20260425);

describe("pool candles", () => {
  it("prices a trade as pair base units per token base unit at a fixed scale, truncated", () => {
    assert.equal(tradePrice(1_000_000n, 3n * 10n ** 18n), CANDLE_PRICE_SCALE / (3n * 10n ** 12n));
    assert.equal(tradePrice(2n * 10n ** 18n, 10n ** 18n), 2n * CANDLE_PRICE_SCALE);
    assert.equal(tradePrice(5n, 0n), null);
  });

  it("buckets a block time in seconds as /api/ohlc's intervals do", () => {
    const t = Date.UTC(2026, 1, 15, 13, 47, 12) / 1000;
    assert.equal(candleBucket("minute", t), Date.UTC(2026, 1, 15, 13, 47) / 1000);
    assert.equal(candleBucket("hour4", t), Date.UTC(2026, 1, 15, 12) / 1000);
    assert.equal(candleBucket("month", t), Date.UTC(2026, 1, 1) / 1000);
    assert.equal(candleBucket("year", t), Date.UTC(2026, 0, 1) / 1000);
    assert.equal(CANDLE_INTERVALS.length, 10);
  });

  it("folding trades one by one gives first, highest, lowest, last and the sums", () => {
    console.log(`# FC_SEED=${SEED}`);
    const trade = fc.record({
      price: fc.bigInt({ min: 1n, max: 10n ** 60n }),
      pairAmount: fc.bigInt({ min: 0n, max: 10n ** 30n }),
      tokenAmount: fc.bigInt({ min: 1n, max: 10n ** 30n }),
    });
    fc.assert(
      fc.property(fc.array(trade, { minLength: 1, maxLength: 50 }), (trades: CandleTrade[]) => {
        const candle = trades.slice(1).reduce(addTrade, openCandle(trades[0]!));
        const prices = trades.map((t) => t.price);
        assert.deepEqual(candle, {
          open: prices[0],
          high: prices.reduce((a, b) => (b > a ? b : a)),
          low: prices.reduce((a, b) => (b < a ? b : a)),
          close: prices.at(-1),
          volumePair: trades.reduce((sum, t) => sum + t.pairAmount, 0n),
          volumeToken: trades.reduce((sum, t) => sum + t.tokenAmount, 0n),
          trades: trades.length,
        });
      }),
      { seed: SEED, numRuns: 200 },
    );
  });
});
