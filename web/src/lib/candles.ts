import { bucketStart as bucketStartMs, type Interval, nextBucket } from "../../../exchange/core/candles/index.ts";
import { addDecimal, compareDecimal } from "./decimal.ts";

/**
 * Candles as the APIs send them (SPEC.md's shape, decimal strings) and their update from live
 * trades: a trade in the newest candle's bucket moves its close, max, min and volumes; a trade in
 * a later bucket opens a new candle; an older trade (already counted by the REST answer the chart
 * started from, or late) changes nothing, since the next reload has it.
 */

export type { Interval };

export const INTERVAL_LABELS: Record<Interval, string> = {
  minute: "1m",
  minutes3: "3m",
  minutes5: "5m",
  minutes15: "15m",
  minutes30: "30m",
  hour: "1h",
  hour4: "4h",
  day: "1D",
  month: "1M",
  year: "1Y",
};

export interface Candle {
  /** Bucket start, Unix seconds (UTC). */
  time: number;
  open: string;
  max: string;
  min: string;
  close: string;
  /** Quote (pair-asset) volume. */
  volume: string;
  /** Base (token) volume. */
  volumeBase: string;
}

export interface LiveTrade {
  /** Unix seconds. */
  time: number;
  price: string;
  /** Base amount (tokens, or the pair's base currency). */
  amount: string;
  /** Quote amount. */
  quoteAmount: string;
}

/**
 * The UTC bucket start of `time` (Unix seconds): the exchange's own buckets (its candle core),
 * which the ecosystem API's pool candles use too, so a live trade lands in the candle the REST
 * answer has.
 */
export const bucketStart = (time: number, interval: Interval): number => bucketStartMs(interval, time * 1000) / 1000;

/** Seconds a bucket lasts (the first month and year of 1970 for those; for choosing a time range only). */
export const intervalSeconds = (interval: Interval): number => nextBucket(interval, 0) / 1000;

/** The candles (oldest first) after `trade`. Returns a new array; the input is not changed. */
export function applyTrade(candles: readonly Candle[], trade: LiveTrade, interval: Interval): Candle[] {
  const bucket = bucketStart(trade.time, interval);
  const last = candles.at(-1);
  if (last && bucket < last.time) return [...candles];
  if (last && bucket === last.time) {
    const updated: Candle = {
      time: last.time,
      open: last.open,
      max: compareDecimal(trade.price, last.max) > 0 ? trade.price : last.max,
      min: compareDecimal(trade.price, last.min) < 0 ? trade.price : last.min,
      close: trade.price,
      volume: addDecimal(last.volume, trade.quoteAmount),
      volumeBase: addDecimal(last.volumeBase, trade.amount),
    };
    return [...candles.slice(0, -1), updated];
  }
  return [
    ...candles,
    {
      time: bucket,
      open: trade.price,
      max: trade.price,
      min: trade.price,
      close: trade.price,
      volume: trade.quoteAmount,
      volumeBase: trade.amount,
    },
  ];
}
