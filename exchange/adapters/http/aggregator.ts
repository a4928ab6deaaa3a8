import { z } from "zod";
import { invalidParam, notFound, OpenAPIHono } from "../../../lib/http/index.ts";
import { COMMISSION_TYPES } from "../../core/ledger/index.ts";
import { formatAmount, formatPrice } from "../../core/money/index.ts";
import { decimalJson } from "../../core/money/json.ts";
import { tickLotText, type MarketData } from "../marketdata/market-data.ts";
import type { Exchange, Pair } from "../../application/index.ts";
import { createReadCache } from "./read-cache.ts";
import { serve } from "./serve.ts";
import { summaryRoute, type MarketSummary } from "./summary.ts";

// {aggregator_url}/api/marketdata/getaggregator/*: the spot-exchange section of the aggregator
// integration standard (SPEC.md "Aggregator namespace"). Errors follow SPEC.md's table: 400
// INVALID_PARAM for a missing or bad parameter, 404 NOT_FOUND for an unknown ticker_id.

const BASE = "/api/marketdata/getaggregator";
const decimal = z.number().meta({ description: "Decimal, exact (JSON number)" });
const DEPTHS = [0, 100, 200, 500] as const;
/** Defaults SPEC.md leaves open: depth 100 (50 per side) and limit 100 per side. */
export const DEFAULT_DEPTH = 100;
export const DEFAULT_LIMIT = 100;
/** limit=0 ("maximum available history") is capped per side so one call stays bounded. */
export const MAX_HISTORY = 10_000;
export const TICKERS_CACHE_MS = 5_000;

const oneOf = (allowed: readonly number[], fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, `must be one of ${allowed.join(", ")}`)
    .transform(Number)
    .refine((value) => allowed.includes(value), `must be one of ${allowed.join(", ")}`)
    .optional()
    .transform((value) => value ?? fallback)
    .meta({ description: `One of ${allowed.join(", ")}; default ${fallback}` });

const tickerId = z
  .string({ error: "is required" })
  .min(1, "is required")
  .meta({ description: "Pair identifier <base>_<target>", example: "ALPHA_USDT" });
const epochMs = z
  .string()
  .regex(/^\d{1,15}$/, "must be epoch milliseconds")
  .transform(Number);

const orderbookQuery = z.object({ ticker_id: tickerId, depth: oneOf(DEPTHS, DEFAULT_DEPTH) });
const tradesQuery = z.object({
  ticker_id: tickerId,
  type: z.enum(["buy", "sell"], { error: "must be buy or sell" }).optional(),
  limit: oneOf(DEPTHS, DEFAULT_LIMIT),
  start_time: epochMs.optional().meta({ description: "Inclusive lower bound on trade_timestamp, epoch ms" }),
  end_time: epochMs.optional().meta({ description: "Inclusive upper bound on trade_timestamp, epoch ms" }),
});

const tickerSchema = z.object({
  ticker_id: z.string(),
  base_currency: z.string(),
  target_currency: z.string(),
  last_price: decimal,
  base_volume: decimal,
  target_volume: decimal,
  bid: decimal.nullable(),
  ask: decimal.nullable(),
  high: decimal.nullable(),
  low: decimal.nullable(),
});
const assetSchema = z.record(
  z.string(),
  z.object({
    name: z.string(),
    unified_cryptoasset_id: z.number().int().nullable(),
    can_withdraw: z.boolean(),
    can_deposit: z.boolean(),
    min_withdraw: decimal.nullable(),
    max_withdraw: decimal.nullable(),
    maker_fee: decimal.nullable(),
    taker_fee: decimal.nullable(),
    daily_withdraw_limit: decimal.nullable().meta({
      description: "Extension: most one user may withdraw in any 24 h, in asset units; null when unlimited",
    }),
    withdraw_approval_threshold: decimal.nullable().meta({
      description: "Extension: withdrawals above this wait for an operator's approval; null when none do",
    }),
  }),
);
const tuple = z.tuple([decimal, decimal]).meta({ description: "[price, quantity]" });
const orderbookSchema = z.object({
  ticker_id: z.string(),
  timestamp: z.number().int().meta({ description: "Epoch ms" }),
  bids: z.array(tuple),
  asks: z.array(tuple),
});
const tradeSchema = z.object({
  trade_id: z.number().int().meta({ description: "Per pair, strictly increasing" }),
  price: decimal,
  base_volume: decimal,
  target_volume: decimal.meta({ description: "price x base_volume, in the target currency" }),
  trade_timestamp: z.number().int().meta({ description: "Epoch ms" }),
  type: z.enum(["buy", "sell"]),
});
const tradesSchema = z.object({ buy: z.array(tradeSchema), sell: z.array(tradeSchema) });

const missingOrBad = (what: string) => ({ status: 400, code: "INVALID_PARAM", when: what });
const unknownTicker = { status: 404, code: "NOT_FOUND", when: "ticker_id is not a valid trading pair" };

export function aggregatorApi(deps: {
  exchange: Exchange;
  marketData: MarketData;
  /** The all-pairs summary, shared with GET /api/summary. */
  summary: MarketSummary;
  nowMs?: () => number;
}) {
  const { exchange, marketData } = deps;
  const reads = createReadCache();
  const nowMs = deps.nowMs ?? Date.now;
  const app = new OpenAPIHono();
  const pairOf = (code: string): Pair => {
    const pair = exchange.reference.pairs.get(code);
    if (pair === undefined || !pair.row.active) throw notFound(`ticker_id ${code} is not a valid trading pair`);
    return pair;
  };
  let tickersCache: { at: number; body: string } | undefined;

  serve(
    app,
    BASE,
    {
      method: "get",
      path: `${BASE}/tickers`,
      tag: "Aggregator",
      summary: "24-hour tickers of every active pair, by ticker_id",
      description: `Pairs with no trade in the last 24 hours or an empty book are left out. Cached by the server for ${TICKERS_CACHE_MS / 1000} s.`,
      access: "public",
      response: z.array(tickerSchema),
      headers: { "Cache-Control": `public, max-age=${TICKERS_CACHE_MS / 1000}` },
    },
    ({ c }) => {
      c.header("Cache-Control", `public, max-age=${TICKERS_CACHE_MS / 1000}`);
      const now = nowMs();
      if (tickersCache === undefined || now - tickersCache.at >= TICKERS_CACHE_MS) {
        const tickers = [...exchange.reference.pairs.values()]
          .filter((pair) => pair.row.active)
          .sort((a, b) => (a.row.code < b.row.code ? -1 : 1))
          .flatMap((pair) => {
            const { stats, bestBid, bestAsk } = marketData.snapshot(pair);
            if (stats.count === 0 || (bestBid === null && bestAsk === null) || stats.last === null) return [];
            const price = (ticks: number | null) =>
              ticks === null ? null : decimalJson(formatPrice(ticks, pair.spec));
            return [
              {
                ticker_id: pair.row.code,
                base_currency: pair.row.base,
                target_currency: pair.row.quote,
                last_price: price(stats.last.priceTicks),
                base_volume: decimalJson(formatAmount(stats.volumeLots, pair.spec)),
                target_volume: decimalJson(tickLotText(stats.volumeQuote, pair)),
                bid: price(bestBid),
                ask: price(bestAsk),
                high: price(stats.high),
                low: price(stats.low),
              },
            ];
          });
        tickersCache = { at: now, body: JSON.stringify(tickers) };
      }
      return c.body(tickersCache.body, 200, { "content-type": "application/json" });
    },
  );

  serve(app, BASE, summaryRoute(`${BASE}/summary`, "Aggregator"), ({ c }) => deps.summary.answer(c));

  serve(
    app,
    BASE,
    {
      method: "get",
      path: `${BASE}/asset`,
      tag: "Aggregator",
      summary: "Every asset keyed by symbol",
      description: "maker_fee and taker_fee are the default-tier spot trade fractions; limits are in asset units.",
      access: "public",
      response: assetSchema,
    },
    ({ c }) => {
      const defaults = exchange.reference.commissionsFor(0);
      const tradeFee = (typeCode: string, currency: string) => {
        const rows = defaults.filter(
          (row) =>
            row.commissionTypeCode === typeCode &&
            row.currencyPairCode === null &&
            (row.currencyCode === currency || row.currencyCode === null),
        );
        const row = rows.find((r) => r.currencyCode === currency) ?? rows[0];
        return row === undefined ? null : decimalJson(row.percent);
      };
      const assets: Record<string, unknown> = {};
      for (const { row } of [...exchange.reference.currencies.values()].sort((a, b) =>
        a.row.code < b.row.code ? -1 : 1,
      )) {
        assets[row.code] = {
          name: row.name,
          unified_cryptoasset_id: row.unifiedCryptoassetId,
          // False also when the chain gateway cannot send the currency on its chain.
          can_withdraw: exchange.canWithdraw(row.code),
          can_deposit: exchange.canDeposit(row.code),
          min_withdraw: row.minWithdraw === null ? null : decimalJson(row.minWithdraw),
          max_withdraw: row.maxWithdraw === null ? null : decimalJson(row.maxWithdraw),
          maker_fee: tradeFee(COMMISSION_TYPES.tradeMaker, row.code),
          taker_fee: tradeFee(COMMISSION_TYPES.tradeTaker, row.code),
          daily_withdraw_limit: row.dailyWithdrawLimit == null ? null : decimalJson(row.dailyWithdrawLimit),
          withdraw_approval_threshold:
            row.withdrawApprovalThreshold == null ? null : decimalJson(row.withdrawApprovalThreshold),
        };
      }
      return c.json(assets);
    },
  );

  serve(
    app,
    BASE,
    {
      method: "get",
      path: `${BASE}/orderbook`,
      tag: "Aggregator",
      summary: "Order book of one pair as [price, quantity] tuples",
      description: `depth counts levels across both sides (100 = up to 50 bids and 50 asks); 0 is the full book; default ${DEFAULT_DEPTH}.`,
      access: "public",
      query: orderbookQuery,
      response: orderbookSchema,
      errors: [missingOrBad("ticker_id missing or depth not in {0, 100, 200, 500}"), unknownTicker],
    },
    ({ query, c }) => {
      const pair = pairOf(query.ticker_id);
      const perSide = query.depth === 0 ? Number.MAX_SAFE_INTEGER : query.depth / 2;
      const side = (isBid: boolean) =>
        marketData
          .levels(pair, isBid, perSide)
          .map((level) => [
            decimalJson(formatPrice(level.priceTicks, pair.spec)),
            decimalJson(formatAmount(level.lots, pair.spec)),
          ]);
      return c.json({ ticker_id: pair.row.code, timestamp: nowMs(), bids: side(true), asks: side(false) });
    },
  );

  serve(
    app,
    BASE,
    {
      method: "get",
      path: `${BASE}/historical_trades`,
      tag: "Aggregator",
      summary: "Recent trades of one pair, split by taker side, newest first",
      description: `limit is per side (0 = all available, capped at ${MAX_HISTORY} per side); default ${DEFAULT_LIMIT}. start_time and end_time are inclusive epoch ms.`,
      access: "public",
      query: tradesQuery,
      response: tradesSchema,
      errors: [
        missingOrBad("ticker_id missing, limit or type invalid, or start_time greater than end_time"),
        unknownTicker,
      ],
    },
    async ({ query, c }) => {
      if (query.start_time !== undefined && query.end_time !== undefined && query.start_time > query.end_time) {
        throw invalidParam("start_time", "must not be greater than end_time");
      }
      const pair = pairOf(query.ticker_id);
      const limit = query.limit === 0 ? MAX_HISTORY : query.limit;
      const side = async (type: "buy" | "sell") => {
        if (query.type !== undefined && query.type !== type) return [];
        const deals = await marketData.deals(pair, {
          takerIsBid: type === "buy",
          // Deals carry microseconds; an inclusive millisecond bound covers its whole millisecond.
          sinceUs: query.start_time === undefined ? undefined : query.start_time * 1000,
          untilUs: query.end_time === undefined ? undefined : query.end_time * 1000 + 999,
          offset: 0,
          limit,
        });
        return deals.map((deal) => ({
          trade_id: deal.tradeSeq,
          price: decimalJson(formatPrice(deal.priceTicks, pair.spec)),
          base_volume: decimalJson(formatAmount(deal.amountLots, pair.spec)),
          target_volume: decimalJson(tickLotText(BigInt(deal.priceTicks) * BigInt(deal.amountLots), pair)),
          trade_timestamp: Math.floor(deal.executedAtUs / 1000),
          type,
        }));
      };
      const render = async () => {
        const [buy, sell] = await Promise.all([side("buy"), side("sell")]);
        return { buy, sell };
      };
      // The same for every caller until the pair trades again.
      const version = String(marketData.dealsVersion(pair.row.code));
      const body = await reads.get(`trades ${pair.row.code} ${JSON.stringify(query)}`, version, render);
      return c.body(body, 200, { "Content-Type": "application/json" });
    },
  );

  return app;
}
