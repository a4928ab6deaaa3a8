export { bucketCount, bucketStart, INTERVALS, nextBucket, ROLLUP_LEVELS, sourceLevel } from "./intervals.ts";
export type { Interval, RollupLevel } from "./intervals.ts";
export { candleRowsOf, foldCandles, type Candle, type CandleDeal, type CandleRow } from "./rollup.ts";
