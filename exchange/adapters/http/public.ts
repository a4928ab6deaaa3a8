import { tickerKey, tickerSecond, tickerView } from "../marketdata/ticker.ts";
import { z } from "zod";
import { invalidParam, isoUtcParam as isoUtc, MAX_CANDLES, OpenAPIHono } from "../../../lib/http/index.ts";
import { formatAmount, formatPrice } from "../../core/money/index.ts";
import { decimalJson } from "../../core/money/json.ts";
import { bucketCount, bucketStart, INTERVALS, type Interval, nextBucket } from "../../core/candles/index.ts";
import { tickLotText, type MarketData } from "../marketdata/market-data.ts";
import type { Exchange, Pair } from "../../application/index.ts";
import { ALIAS_BASE, aliasedServer, API_BASE } from "./alias.ts";
import { pairQuery, positiveInt, unknownPair } from "./schemas.ts";
import { summaryRoute, type MarketSummary } from "./summary.ts";
import { isoFromMicros } from "./time.ts";
import { createReadCache } from "./read-cache.ts";
import { commissionView } from "./views.ts";

// {base_url}'s anonymous market data (SPEC.md "Public market data"), each route also served at its
// /v1/spot/market alias (alias.ts). GET /api/deals also accepts a signed call, which fills
// isUserBuyer for the caller's own trades.

const decimal = z.number().meta({ description: "Decimal, exact (JSON number)" });

const dealsQuery = pairQuery.extend({
  sinceDate: isoUtc.optional().meta({ description: "Inclusive lower bound on dealDateUtc (ISO 8601 UTC, no offset)" }),
  endDate: isoUtc.optional().meta({ description: "Inclusive upper bound on dealDateUtc (ISO 8601 UTC, no offset)" }),
  pageNumber: positiveInt(1_000_000, 1, "1-based page"),
  pageSize: positiveInt(100, 100, "Deals per page (max 100)"),
});

const ohlcQuery = pairQuery.extend({
  interval: z.enum(INTERVALS, { error: `must be one of ${INTERVALS.join(", ")}` }),
  start: isoUtc,
  end: isoUtc,
});

export const tickerSchema = z.object({
  timestamp: z.number().int().meta({ description: "Time of this snapshot, Unix seconds" }),
  currencyPairCode: z.string(),
  price: decimal,
  price24hAgo: decimal,
  priceChangePercentage24h: decimal,
  volume24h: decimal,
  bidPrice: decimal,
  askPrice: decimal,
});

const levelSchema = z.object({
  isBid: z.boolean(),
  price: decimal,
  amount: decimal,
  quoteAmount: decimal,
  currencyTo: decimal.meta({ deprecated: true, description: "Deprecated alias of amount; will be removed" }),
  currencyFrom: decimal.meta({ deprecated: true, description: "Deprecated alias of quoteAmount; will be removed" }),
});

const dealSchema = z.object({
  id: z.uuid(),
  dealDateUtc: z.string().meta({ example: "2026-04-29T12:00:00.123456Z" }),
  currencyPairCode: z.string(),
  volume: decimal,
  price: decimal,
  isBuy: z.boolean(),
  isUserBuyer: z.boolean().nullable(),
});

const candleSchema = z.object({
  date: z.string().meta({ description: "Bucket start, ISO 8601 UTC without offset", example: "2026-04-29T12:00:00" }),
  open: decimal,
  max: decimal,
  min: decimal,
  close: decimal,
  volume: decimal.meta({ description: "Volume in target (quote) currency" }),
  volumeBase: decimal,
});

const pairSettingSchema = z.object({
  code: z.string(),
  digitsPrice: z.number().int(),
  digitsAmount: z.number().int(),
  minQuoteAmount: decimal.nullable(),
});

export const commissionSchema = z.object({
  commissionId: z.uuid(),
  currencyCode: z.string().nullable(),
  currencyPairCode: z.string().nullable(),
  currencyAdapterCode: z.string().nullable(),
  percent: decimal,
  minimum: decimal,
  commissionCurrencyCode: z.string().nullable(),
  commissionTypeCode: z.string(),
  commissionType: z.object({ code: z.string(), value: z.string(), valueKey: z.string() }),
  hashCode: z.string(),
});

export interface PublicDeps {
  readonly exchange: Exchange;
  readonly marketData: MarketData;
  /** Who signed the request, when it was signed (GET /api/deals); undefined for anonymous calls. */
  readonly caller: (c: import("hono").Context) => Promise<string | undefined>;
  /** The server's clock in epoch ms: the one API-Timestamp is judged by, answered by /api/time. */
  readonly nowMs: () => number;
  /** The all-pairs summary, shared with the aggregator's /summary (one cache, one answer). */
  readonly summary: MarketSummary;
}

/**
 * What a candle range's answer depends on: a range whose last interval closed long ago (longer
 * than a commit may take) changes only on a reload; one reaching the present, with every deal.
 */
function candleVersion(marketData: MarketData, pair: Pair, interval: Interval, endMs: number): string {
  const closedAt = nextBucket(interval, bucketStart(interval, endMs));
  const nowMs = Math.floor(marketData.now() / 1000);
  return closedAt + COMMIT_MARGIN_MS <= nowMs
    ? `closed ${marketData.loadVersion()}`
    : `open ${marketData.dealsVersion(pair.row.code)}`;
}
const JSON_TYPE = { "Content-Type": "application/json" };
/** Longer than a deal may wait for its commit (the group committer gives up at 10 s). */
const COMMIT_MARGIN_MS = 30_000;

export function publicApi(deps: PublicDeps) {
  const { exchange, marketData } = deps;
  const api = new OpenAPIHono();
  const alias = new OpenAPIHono();
  const route = aliasedServer(api, alias);
  const pairOf = (code: string): Pair => exchange.reference.pair(code);
  const reads = createReadCache();
  const orderbookCache = new Map<string, { version: number; body: Uint8Array<ArrayBuffer> }>();
  const tickerCache = new Map<string, { key: string; body: string }>();

  route(
    {
      method: "get",
      path: "/api/tickers",
      tag: "Market data",
      summary: "Ticker of one pair",
      access: "public",
      query: pairQuery,
      response: tickerSchema,
      errors: [unknownPair],
      description:
        "price is the last trade; price24hAgo the last trade at or before 24 hours ago (else the first trade since, else the last); " +
        "volume24h in base currency over the rolling 24 hours; bidPrice/askPrice 0 when that side of the book is empty.",
    },
    ({ query, c }) => {
      const pair = pairOf(query.currencyPairCode);
      const code = pair.row.code;
      // The ticker is stamped in whole seconds: within one second, and until the book or the deals
      // change, the answer is the same, so it is built once.
      const second = tickerSecond(marketData);
      const key = tickerKey(marketData, exchange.bookVersion(code), pair, second);
      let cached = tickerCache.get(code);
      if (cached?.key !== key) {
        const body = JSON.stringify(tickerView(marketData, pair, second));
        cached = { key, body };
        tickerCache.set(code, cached);
      }
      return c.body(cached.body, 200, { "Content-Type": "application/json" });
    },
  );

  route(
    {
      method: "get",
      path: "/api/orderbook",
      tag: "Market data",
      summary: "Order book of one pair: up to 40 bid and 40 ask levels, aggregated by price",
      description: "Bids best (highest) first, then asks best (lowest) first. quoteAmount = price x amount, exact.",
      access: "public",
      query: pairQuery,
      response: z.array(levelSchema),
      errors: [unknownPair],
    },
    ({ query, c }) => {
      const pair = pairOf(query.currencyPairCode);
      // Reads far outnumber book changes: the serialised answer is kept until the book changes.
      const version = exchange.bookVersion(pair.row.code);
      let cached = orderbookCache.get(pair.row.code);
      if (cached?.version !== version) {
        const side = (isBid: boolean) =>
          marketData.levels(pair, isBid, 40).map((level) => {
            const amount = decimalJson(formatAmount(level.lots, pair.spec));
            const quoteAmount = decimalJson(tickLotText(BigInt(level.priceTicks) * level.lots, pair));
            return {
              isBid,
              price: decimalJson(formatPrice(level.priceTicks, pair.spec)),
              amount,
              quoteAmount,
              currencyTo: amount,
              currencyFrom: quoteAmount,
            };
          });
        // Kept as UTF-8 bytes: encoding 8 KB of text on every write was most of the remaining cost.
        cached = { version, body: Buffer.from(JSON.stringify([...side(true), ...side(false)])) };
        orderbookCache.set(pair.row.code, cached);
      }
      return c.body(cached.body, 200, { "Content-Type": "application/json" });
    },
  );

  route(
    {
      method: "get",
      path: "/api/deals",
      tag: "Market data",
      summary: "Recent deals of one pair, newest first",
      description:
        "sinceDate and endDate are inclusive instants (microsecond precision). Anonymous calls get isUserBuyer null; a call signed as for the " +
        "trading API gets true/false on the deals the caller took part in (null on the others).",
      access: "public-or-signed",
      query: dealsQuery,
      response: z.array(dealSchema),
      errors: [unknownPair, { status: 400, code: "INVALID_PARAM", when: "endDate is before sinceDate" }],
    },
    async ({ query, c }) => {
      const pair = pairOf(query.currencyPairCode);
      if (query.sinceDate !== undefined && query.endDate !== undefined && query.endDate < query.sinceDate) {
        throw invalidParam("endDate", "must not be before sinceDate");
      }
      const userId = await deps.caller(c);
      const render = async () =>
        (
          await marketData.deals(pair, {
            sinceUs: query.sinceDate,
            untilUs: query.endDate,
            offset: (query.pageNumber - 1) * query.pageSize,
            limit: query.pageSize,
          })
        ).map((deal) => {
          const buyer = deal.takerIsBid ? deal.takerUserId : deal.makerUserId;
          const seller = deal.takerIsBid ? deal.makerUserId : deal.takerUserId;
          return {
            id: deal.id,
            dealDateUtc: isoFromMicros(deal.executedAtUs),
            currencyPairCode: pair.row.code,
            volume: decimalJson(formatAmount(deal.amountLots, pair.spec)),
            price: decimalJson(formatPrice(deal.priceTicks, pair.spec)),
            isBuy: deal.takerIsBid,
            isUserBuyer: userId === undefined ? null : userId === buyer ? true : userId === seller ? false : null,
          };
        });
      // Anonymous answers are everyone's until the pair trades again; a signed one is the caller's own.
      if (userId !== undefined) return c.json(await render());
      const version = String(marketData.dealsVersion(pair.row.code));
      return c.body(
        await reads.get(`deals ${pair.row.code} ${JSON.stringify(query)}`, version, render),
        200,
        JSON_TYPE,
      );
    },
  );

  route(
    {
      method: "get",
      path: "/api/ohlc",
      tag: "Market data",
      summary: "Candles of one pair, oldest first",
      description:
        `Candles whose interval overlaps [start, end], from the incremental rollup; intervals without trades are left out. At most ${MAX_CANDLES} ` +
        "intervals per call: split longer ranges into several calls. date is the interval's start (UTC, no offset).",
      access: "public",
      query: ohlcQuery,
      response: z.array(candleSchema),
      errors: [
        unknownPair,
        { status: 400, code: "INVALID_PARAM", when: "end is before start, or the range spans too many intervals" },
      ],
    },
    async ({ query, c }) => {
      const pair = pairOf(query.currencyPairCode);
      if (query.end < query.start) throw invalidParam("end", "must not be before start");
      const [startMs, endMs] = [Math.floor(query.start / 1000), Math.floor(query.end / 1000)];
      if (bucketCount(query.interval, startMs, endMs) > MAX_CANDLES) {
        throw invalidParam(
          "end",
          `the range spans more than ${MAX_CANDLES} ${query.interval} intervals; split it into several calls`,
        );
      }
      const render = async () =>
        (await exchange.candles(pair.row.code, query.interval, startMs, endMs)).map((candle) => ({
          date: new Date(candle.bucketMs).toISOString().slice(0, 19),
          open: decimalJson(formatPrice(candle.open, pair.spec)),
          max: decimalJson(formatPrice(candle.high, pair.spec)),
          min: decimalJson(formatPrice(candle.low, pair.spec)),
          close: decimalJson(formatPrice(candle.close, pair.spec)),
          volume: decimalJson(tickLotText(candle.volumeTickLots, pair)),
          volumeBase: decimalJson(formatAmount(candle.volumeLots, pair.spec)),
        }));
      const key = `ohlc ${pair.row.code} ${query.interval} ${startMs} ${endMs}`;
      const version = candleVersion(marketData, pair, query.interval, endMs);
      return c.body(await reads.get(key, version, render), 200, JSON_TYPE);
    },
  );

  route(
    {
      method: "get",
      path: "/api/currencies",
      tag: "Reference",
      summary: "Currency codes, in display order",
      access: "public",
      response: z.array(z.string()),
    },
    ({ c }) =>
      c.json(
        [...exchange.reference.currencies.values()]
          .sort((a, b) => a.row.position - b.row.position || a.row.code.localeCompare(b.row.code))
          .map((currency) => currency.row.code),
      ),
  );

  route(
    {
      method: "get",
      path: "/api/currencies/pairs",
      tag: "Reference",
      summary: "Settings of every active pair",
      access: "public",
      response: z.array(pairSettingSchema),
    },
    ({ c }) =>
      c.json(
        [...exchange.reference.pairs.values()]
          .filter((pair) => pair.row.active)
          .sort((a, b) => a.row.code.localeCompare(b.row.code))
          .map((pair) => ({
            code: pair.row.code,
            digitsPrice: pair.row.digitsPrice,
            digitsAmount: pair.row.digitsAmount,
            minQuoteAmount: pair.row.minQuoteAmount === null ? null : decimalJson(pair.row.minQuoteAmount),
          })),
      ),
  );

  route(
    {
      method: "get",
      path: "/api/currencies/commissions",
      tag: "Reference",
      summary: "Default commissions (deposit, withdrawal, trade maker and taker)",
      description: 'commissionTypeCode "1" Refill (deposit), "2" Withdrawal, "3" TradeMaker, "4" TradeTaker.',
      access: "public",
      response: z.array(commissionSchema),
    },
    ({ c }) => c.json(exchange.reference.commissionsFor(0).map(commissionView)),
  );

  route(
    {
      method: "get",
      path: "/api/time",
      tag: "Service",
      summary: "Server time, {serverTime: epoch ms} (Binance's layout)",
      description:
        "The clock API-Timestamp is judged by: a client measures its offset from it before signing. Not cached (Cache-Control: no-store).",
      access: "public",
      response: z.object({ serverTime: z.number().int().meta({ description: "Unix epoch milliseconds" }) }),
      headers: { "Cache-Control": "no-store" },
    },
    ({ c }) => c.json({ serverTime: Math.floor(deps.nowMs()) }, 200, { "Cache-Control": "no-store" }),
  );

  route(summaryRoute("/api/summary", "Market data"), ({ c }) => deps.summary.answer(c));

  // Mounted at the root by app.ts: the routes under /api, their aliases under /v1/spot/market.
  const app = new OpenAPIHono();
  app.route(API_BASE, api);
  app.route(ALIAS_BASE, alias);
  return app;
}
