import assert from "node:assert/strict";
import { it } from "vitest";
import type { TradePoint, WindowStats } from "../marketdata/rolling-window.ts";
import { price24hAgo } from "../marketdata/ticker.ts";

const trade = (priceTicks: number): TradePoint => ({ timeUs: 0, priceTicks, lots: 1, quoteUnits: 1n });
const stats = (over: Partial<WindowStats>): WindowStats => ({
  last: null,
  priceBefore: null,
  first: null,
  volumeLots: 0n,
  volumeQuote: 0n,
  high: null,
  low: null,
  count: 0,
  ...over,
});

it("the 24 h reference price: the trade before the window, else the first inside, else the last, else none", () => {
  assert.equal(price24hAgo(stats({ priceBefore: 7, first: trade(8), last: trade(9) })), 7);
  assert.equal(price24hAgo(stats({ first: trade(8), last: trade(9) })), 8);
  assert.equal(price24hAgo(stats({ last: trade(9) })), 9);
  assert.equal(price24hAgo(stats({})), null);
});
