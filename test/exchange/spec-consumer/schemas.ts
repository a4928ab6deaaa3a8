// SPEC.md's resource tables as zod schemas, for the consumer (nothing imported from the exchange).
import { z } from "zod";
import { Num } from "./decimal.ts";

// ---------------------------------------------------------------------------------------------
// SPEC.md's tables as zod schemas (over parseExact's output: numbers are Num)

export const number = z.instanceof(Num, { message: "expected a JSON number" });
export const integer = number.refine((n) => /^-?\d+$/.test(n.text), "expected an integer (no fraction, no exponent)");
export const decimal = number;
export const uuid = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, "expected a UUID");
export const pairCode = z.string().regex(/^[A-Za-z0-9]+_[A-Za-z0-9]+$/, "expected a pair code <base>_<target>");
/** dealDateUtc: ISO 8601 UTC, sub-millisecond (4+ fractional digits), trailing Z. */
export const DEAL_DATE = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{4,9})Z$/;
/** Candle date: ISO 8601 without offset (no Z, no +hh:mm). */
export const CANDLE_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?$/;

export const schemas = {
  healthcheck: z
    .string()
    .regex(/^\S.* v\d+\.\d+\.\d+\.\d+$/, "expected '<AssemblyName> v<MAJOR>.<MINOR>.<BUILD>.<REVISION>'"),
  currencies: z.array(z.unknown()), // shape not shown in SPEC.md: any array
  pairSetting: z.object({
    code: pairCode,
    digitsPrice: integer,
    digitsAmount: integer,
    minQuoteAmount: decimal.nullable().optional(),
  }),
  commission: z.object({
    commissionId: uuid,
    currencyCode: z.string().nullable().optional(),
    currencyPairCode: z.string().nullable().optional(),
    currencyAdapterCode: z.string().nullable().optional(),
    percent: decimal,
    minimum: decimal,
    commissionCurrencyCode: z.string().nullable().optional(),
    commissionTypeCode: z.string().regex(/^\d+$/, "expected a numeric string"),
    commissionType: z.object({ code: z.string(), value: z.string(), valueKey: z.string() }),
    hashCode: z.string().optional(),
  }),
  ticker: z.object({
    timestamp: integer,
    currencyPairCode: z.string(),
    price: decimal,
    price24hAgo: decimal,
    priceChangePercentage24h: decimal,
    volume24h: decimal,
    bidPrice: decimal,
    askPrice: decimal,
  }),
  level: z.object({
    isBid: z.boolean(),
    price: decimal,
    amount: decimal,
    quoteAmount: decimal,
    currencyTo: decimal,
    currencyFrom: decimal,
  }),
  deal: z.object({
    id: uuid,
    dealDateUtc: z.string().regex(DEAL_DATE, "expected ISO 8601 UTC with sub-millisecond digits and a trailing Z"),
    currencyPairCode: z.string(),
    volume: decimal,
    price: decimal,
    isBuy: z.boolean(),
    isUserBuyer: z.boolean().nullable(),
  }),
  candle: z.object({
    date: z.string().regex(CANDLE_DATE, "expected ISO 8601 without offset"),
    open: decimal,
    max: decimal,
    min: decimal,
    close: decimal,
    volume: decimal,
    volumeBase: decimal,
  }),
  aggTicker: z.object({
    ticker_id: pairCode,
    base_currency: z.string(),
    target_currency: z.string(),
    last_price: decimal,
    base_volume: decimal,
    target_volume: decimal,
    bid: decimal.nullable().optional(),
    ask: decimal.nullable().optional(),
    high: decimal.nullable().optional(),
    low: decimal.nullable().optional(),
  }),
  aggAsset: z.object({
    name: z.string(),
    unified_cryptoasset_id: integer.nullable().optional(),
    can_withdraw: z.boolean(),
    can_deposit: z.boolean(),
    min_withdraw: decimal.nullable().optional(),
    max_withdraw: decimal.nullable().optional(),
    maker_fee: decimal.nullable().optional(),
    taker_fee: decimal.nullable().optional(),
  }),
  // The names of the echoed pair and the update time are not shown: loose, found by value below.
  aggOrderbook: z.looseObject({
    bids: z.array(z.tuple([decimal, decimal])),
    asks: z.array(z.tuple([decimal, decimal])),
  }),
  // The target-size field's name is not shown: loose, found by value below.
  aggTrade: z.looseObject({
    trade_id: integer,
    price: decimal,
    base_volume: decimal,
    trade_timestamp: integer,
    type: z.enum(["buy", "sell"]),
  }),
  error: z.object({ code: z.string().min(1), message: z.string() }),
};
export const historicalTrades = z.object({
  buy: z.array(schemas.aggTrade).optional(),
  sell: z.array(schemas.aggTrade).optional(),
});

export type PairSetting = z.infer<typeof schemas.pairSetting>;
export type Level = z.infer<typeof schemas.level>;
export type Trade = z.infer<typeof schemas.aggTrade>;
export type Tuple = [Num, Num];
