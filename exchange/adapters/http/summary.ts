import type { Context } from "hono";
import { z } from "zod";
import { defineRoute } from "../../../lib/http/index.ts";
import { formatAmount, formatPrice } from "../../core/money/index.ts";
import { decimalJson } from "../../core/money/json.ts";
import { percentChange, tickLotText, type MarketData } from "../marketdata/market-data.ts";
import { price24hAgo } from "../marketdata/ticker.ts";
import type { Exchange } from "../../application/index.ts";

// The all-pairs summary in the layout of the aggregator standard's spot "summary" endpoint
// (CoinMarketCap's), served at {aggregator_url}/api/marketdata/getaggregator/summary and, as
// SPEC.md's planned compact all-pairs summary, at GET /api/summary (and its /v1/spot/market alias).
// One cached body serves every path, so they never disagree. A deal on any pair drops it at once:
// last price, volumes, change, high and low then agree with /api/tickers, which the deal changes
// too; only the best bid and ask (a book that moved without a trade) may be SUMMARY_CACHE_MS old.

/** As the aggregator tickers: data changes every few seconds and SPEC.md advises caching >= 5 s. */
export const SUMMARY_CACHE_MS = 5_000;
const CACHE_CONTROL = `public, max-age=${SUMMARY_CACHE_MS / 1000}`;

const decimal = z.number().meta({ description: "Decimal, exact (JSON number)" });
const pairSummarySchema = z.object({
  trading_pairs: z.string().meta({ description: "Pair code <base>_<quote>", example: "ALPHA_USDT" }),
  base_currency: z.string(),
  quote_currency: z.string(),
  last_price: decimal.nullable().meta({ description: "Last trade, however old; null when the pair never traded" }),
  lowest_ask: decimal.nullable().meta({ description: "Best ask; null when no ask rests" }),
  highest_bid: decimal.nullable().meta({ description: "Best bid; null when no bid rests" }),
  base_volume: decimal.meta({ description: "Rolling 24 h volume in the base currency" }),
  quote_volume: decimal.meta({ description: "Rolling 24 h volume in the quote currency (sum of price x amount)" }),
  price_change_percent_24h: decimal.meta({
    description:
      "As /api/tickers priceChangePercentage24h: two decimals, half away from zero; 0 without an earlier price",
  }),
  highest_price_24h: decimal.nullable().meta({ description: "Highest trade of the rolling 24 h; null without one" }),
  lowest_price_24h: decimal.nullable().meta({ description: "Lowest trade of the rolling 24 h; null without one" }),
});

/** The route of one summary path; the same shape, cache and headers wherever it is served. */
export const summaryRoute = (path: string, tag: string) =>
  defineRoute({
    method: "get",
    path,
    tag,
    summary: "Summary of every active pair: last price, best bid and ask, 24 h volumes, change, high and low",
    description:
      "One object per active pair, sorted by trading_pairs, traded or not (null where there is no value). " +
      `The server's cached body is rebuilt after a deal on any pair, else once it is ${SUMMARY_CACHE_MS / 1000} s old: ` +
      `a deal shows in the next answer, while lowest_ask and highest_bid may be up to ${SUMMARY_CACHE_MS / 1000} s old ` +
      `(Cache-Control lets clients keep an answer ${SUMMARY_CACHE_MS / 1000} s). ` +
      "/api/summary, /v1/spot/market/summary and /api/marketdata/getaggregator/summary answer the same body.",
    access: "public",
    response: z.array(pairSummarySchema),
    headers: { "Cache-Control": CACHE_CONTROL },
  });

export interface MarketSummary {
  /** Answers the summary: the cached body, rebuilt after a deal, else at most every SUMMARY_CACHE_MS. */
  answer(c: Context): Response;
}

export function marketSummary(deps: {
  exchange: Exchange;
  marketData: Pick<MarketData, "snapshot" | "tradeVersion">;
  nowMs: () => number;
}): MarketSummary {
  const { exchange, marketData, nowMs } = deps;
  let cache: { at: number; trades: number; body: string } | undefined;

  const build = () =>
    [...exchange.reference.pairs.values()]
      .filter((pair) => pair.row.active)
      .sort((a, b) => (a.row.code < b.row.code ? -1 : 1))
      .map((pair) => {
        const { stats, bestBid, bestAsk } = marketData.snapshot(pair);
        const price = (ticks: number | null) => (ticks === null ? null : decimalJson(formatPrice(ticks, pair.spec)));
        const last = stats.last?.priceTicks ?? null;
        return {
          trading_pairs: pair.row.code,
          base_currency: pair.row.base,
          quote_currency: pair.row.quote,
          last_price: price(last),
          lowest_ask: price(bestAsk),
          highest_bid: price(bestBid),
          base_volume: decimalJson(formatAmount(stats.volumeLots, pair.spec)),
          quote_volume: decimalJson(tickLotText(stats.volumeQuote, pair)),
          price_change_percent_24h: decimalJson(percentChange(price24hAgo(stats), last)),
          highest_price_24h: price(stats.high),
          lowest_price_24h: price(stats.low),
        };
      });

  return {
    answer(c) {
      const now = nowMs();
      const trades = marketData.tradeVersion();
      if (cache === undefined || cache.trades !== trades || now - cache.at >= SUMMARY_CACHE_MS)
        cache = { at: now, trades, body: JSON.stringify(build()) };
      return c.body(cache.body, 200, { "Content-Type": "application/json", "Cache-Control": CACHE_CONTROL });
    },
  };
}
