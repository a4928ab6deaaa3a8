import { formatAmount, formatPrice } from "../../core/money/index.ts";
import { decimalJson } from "../../core/money/json.ts";
import type { Pair } from "../../application/index.ts";
import { type MarketData, percentChange } from "./market-data.ts";
import type { WindowStats } from "./rolling-window.ts";

/**
 * The reference price of a 24 h change: the last trade at or before 24 hours ago, else the first
 * since, else the last (the ticker's price24hAgo and the summary's change).
 */
export function price24hAgo(stats: WindowStats): number | null {
  return stats.priceBefore ?? stats.first?.priceTicks ?? stats.last?.priceTicks ?? null;
}

/**
 * SPEC.md's Ticker of one pair (GET /api/tickers and the `@ticker` streams): stamped in whole
 * seconds; decimals are exact JSON numbers. `key` changes whenever the body may: within one
 * second, and until the book or the deals change, the ticker is the same.
 */
export function tickerKey(marketData: MarketData, bookVersion: number, pair: Pair, second: number): string {
  return `${bookVersion}:${marketData.dealsVersion(pair.row.code)}:${second}`;
}

/** The whole second a ticker is stamped with: read once for a key and its body, so they agree. */
export const tickerSecond = (marketData: MarketData) => Math.floor(marketData.now() / 1_000_000);

export function tickerView(
  marketData: MarketData,
  pair: Pair,
  second = tickerSecond(marketData),
  { stats, bestBid, bestAsk } = marketData.snapshot(pair),
) {
  const last = stats.last?.priceTicks ?? null;
  const before = price24hAgo(stats);
  return {
    timestamp: second,
    currencyPairCode: pair.row.code,
    price: decimalJson(formatPrice(last ?? 0, pair.spec)),
    price24hAgo: decimalJson(formatPrice(before ?? 0, pair.spec)),
    priceChangePercentage24h: decimalJson(percentChange(before, last)),
    volume24h: decimalJson(formatAmount(stats.volumeLots, pair.spec)),
    bidPrice: decimalJson(formatPrice(bestBid ?? 0, pair.spec)),
    askPrice: decimalJson(formatPrice(bestAsk ?? 0, pair.spec)),
  };
}
