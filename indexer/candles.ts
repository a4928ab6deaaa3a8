import { bucketStart, INTERVALS, type Interval } from "../exchange/core/candles/index.ts";

// The pool_candle rollup (indexer/schema.ts): OHLC candles of every pool, kept by the Swap
// handler so the candles endpoint reads finished candles instead of folding raw swaps per
// request. The intervals and their UTC buckets are the exchange's /api/ohlc ones (SPEC.md).

/**
 * Every interval of /api/ohlc is stored, not only a few base levels folded on read: a swap then
 * costs one upsert per interval (10 instead of the exchange's 3), and a request reads at most
 * one row per candle it answers (5,000 at most) instead of up to 30 minute rows per minutes30
 * candle. See indexer/README.md for the measured cost.
 */
export const CANDLE_INTERVALS = INTERVALS;
export type CandleInterval = Interval;

/**
 * Prices are stored as pair-asset base units per token base unit, times 10^36, truncated: exact
 * enough for any pair asset's decimals (the API turns them into whole units per whole token
 * without rounding twice, since floor(floor(x) / n) = floor(x / n)).
 */
export const CANDLE_PRICE_SCALE = 10n ** 36n;

/** What a candle keeps of one swap: its price and both sides' amounts in base units. */
export interface CandleTrade {
  price: bigint;
  pairAmount: bigint;
  tokenAmount: bigint;
}

/** The stored candle columns a trade changes. */
export interface CandleValues {
  open: bigint;
  high: bigint;
  low: bigint;
  close: bigint;
  volumePair: bigint;
  volumeToken: bigint;
  trades: number;
}

/**
 * A swap's price: the pair asset paid per token (amount in over amount out for a buy, out over
 * in for a sell), fee included, at CANDLE_PRICE_SCALE. Null for a swap without tokens (the pool
 * refuses those: it would have no price).
 */
export function tradePrice(pairAmount: bigint, tokenAmount: bigint): bigint | null {
  if (tokenAmount <= 0n) return null;
  return (pairAmount * CANDLE_PRICE_SCALE) / tokenAmount;
}

/** Start (Unix seconds, UTC) of the bucket of `interval` holding `timestamp`. */
export const candleBucket = (interval: CandleInterval, timestamp: number): number =>
  bucketStart(interval, timestamp * 1000) / 1000;

/** The candle a bucket's first trade opens. */
export const openCandle = (trade: CandleTrade): CandleValues => ({
  open: trade.price,
  high: trade.price,
  low: trade.price,
  close: trade.price,
  volumePair: trade.pairAmount,
  volumeToken: trade.tokenAmount,
  trades: 1,
});

/** A candle after one more trade; trades arrive in chain order, so the open stays and the close moves. */
export const addTrade = (candle: CandleValues, trade: CandleTrade): CandleValues => ({
  open: candle.open,
  high: trade.price > candle.high ? trade.price : candle.high,
  low: trade.price < candle.low ? trade.price : candle.low,
  close: trade.price,
  volumePair: candle.volumePair + trade.pairAmount,
  volumeToken: candle.volumeToken + trade.tokenAmount,
  trades: candle.trades + 1,
});
