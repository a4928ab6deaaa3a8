import { addDecimal, compareDecimal } from "./decimal.ts";

/**
 * Candles as the APIs send them (SPEC.md's shape, decimal strings) and their update from live
 * trades: a trade in the newest candle's bucket moves its close, max, min and volumes; a trade in
 * a later bucket opens a new candle; an older trade (already counted by the REST answer the chart
 * started from, or late) changes nothing, since the next reload has it.
 */

export const INTERVALS = [
  "minute",
  "minutes3",
  "minutes5",
  "minutes15",
  "minutes30",
  "hour",
  "hour4",
  "day",
  "month",
  "year",
] as const;
export type Interval = (typeof INTERVALS)[number];

const FIXED_SECONDS: Partial<Record<Interval, number>> = {
  minute: 60,
  minutes3: 180,
  minutes5: 300,
  minutes15: 900,
  minutes30: 1800,
  hour: 3600,
  hour4: 14_400,
  day: 86_400,
};

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

/** The UTC bucket start of `time` (Unix seconds): fixed lengths, months and years by the calendar. */
export function bucketStart(time: number, interval: Interval): number {
  const fixed = FIXED_SECONDS[interval];
  if (fixed) return time - (time % fixed);
  const date = new Date(time * 1000);
  const month = interval === "month" ? date.getUTCMonth() : 0;
  return Date.UTC(date.getUTCFullYear(), month, 1) / 1000;
}

/** Seconds a bucket lasts (months and years approximately; for choosing a time range only). */
export function intervalSeconds(interval: Interval): number {
  return FIXED_SECONDS[interval] ?? (interval === "month" ? 31 * 86_400 : 366 * 86_400);
}

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
