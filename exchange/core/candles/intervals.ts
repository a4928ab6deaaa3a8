// Candle intervals of GET /api/ohlc and the UTC buckets they cut time into. Months and years are
// calendar buckets, the rest fixed lengths. The rollup keeps minute, hour and day candles; every
// interval is built from the largest stored one that divides it, so no request scans raw deals.

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

export const ROLLUP_LEVELS = ["minute", "hour", "day"] as const;
export type RollupLevel = (typeof ROLLUP_LEVELS)[number];

const MINUTE_MS = 60_000;
const FIXED_MS: Partial<Record<Interval, number>> = {
  minute: MINUTE_MS,
  minutes3: 3 * MINUTE_MS,
  minutes5: 5 * MINUTE_MS,
  minutes15: 15 * MINUTE_MS,
  minutes30: 30 * MINUTE_MS,
  hour: 60 * MINUTE_MS,
  hour4: 240 * MINUTE_MS,
  day: 1440 * MINUTE_MS,
};

/** The stored rollup an interval is aggregated from. */
export function sourceLevel(interval: Interval): RollupLevel {
  if (interval === "hour" || interval === "hour4") return "hour";
  if (interval === "day" || interval === "month" || interval === "year") return "day";
  return "minute";
}

/** Start (epoch ms, UTC) of the bucket of `interval` holding `timeMs`. */
export function bucketStart(interval: Interval, timeMs: number): number {
  const fixed = FIXED_MS[interval];
  if (fixed !== undefined) return Math.floor(timeMs / fixed) * fixed;
  const date = new Date(timeMs);
  return interval === "month"
    ? Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)
    : Date.UTC(date.getUTCFullYear(), 0, 1);
}

/** Start of the bucket after the one starting at `startMs`. */
export function nextBucket(interval: Interval, startMs: number): number {
  const fixed = FIXED_MS[interval];
  if (fixed !== undefined) return startMs + fixed;
  const date = new Date(startMs);
  return interval === "month"
    ? Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)
    : Date.UTC(date.getUTCFullYear() + 1, 0, 1);
}

/** How many buckets of `interval` a range spans (an upper bound for request limits). */
export function bucketCount(interval: Interval, fromMs: number, toMs: number): number {
  const fixed = FIXED_MS[interval];
  if (fixed !== undefined) return Math.floor(toMs / fixed) - Math.floor(fromMs / fixed) + 1;
  const from = new Date(fromMs);
  const to = new Date(toMs);
  const years = to.getUTCFullYear() - from.getUTCFullYear();
  return interval === "year" ? years + 1 : years * 12 + to.getUTCMonth() - from.getUTCMonth() + 1;
}
