import { bucketStart, nextBucket, ROLLUP_LEVELS, type Interval, type RollupLevel } from "./intervals.ts";

// The OHLC rollup math: minute, hour and day candles per pair, built from deals and folded into
// the requested interval on read. The store upserts them in the same transaction as the deals they
// summarise (so they survive restarts and never disagree with the deals). Prices in ticks, volumes
// in lots and tick-lots.

/** What the rollup reads of a deal. */
export interface CandleDeal {
  readonly pairCode: string;
  readonly tradeSeq: number;
  readonly priceTicks: number;
  readonly amountLots: number;
  readonly executedAtUs: number;
}

export interface Candle {
  readonly bucketMs: number;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly volumeLots: bigint;
  /** Sum of price x amount in ticks x lots (the quote volume before scaling). */
  readonly volumeTickLots: bigint;
}

/** A stored rollup candle: a candle of one pair and level, with the trade ids at its ends. */
export interface CandleRow extends Candle {
  readonly pairCode: string;
  readonly level: RollupLevel;
  /** Trade sequence numbers of the open and the close, so merges keep the right ends. */
  readonly firstSeq: number;
  readonly lastSeq: number;
}

/** The rollup rows a batch of deals adds to, one per (pair, level, bucket). */
export function candleRowsOf(deals: readonly CandleDeal[]): CandleRow[] {
  const rows = new Map<string, CandleRow>();
  for (const deal of deals) {
    const timeMs = Math.floor(deal.executedAtUs / 1000);
    for (const level of ROLLUP_LEVELS) {
      const bucketMs = bucketStart(level, timeMs);
      const key = `${deal.pairCode}\u0000${level}\u0000${bucketMs}`;
      rows.set(
        key,
        merge(rows.get(key), {
          pairCode: deal.pairCode,
          level,
          bucketMs,
          open: deal.priceTicks,
          high: deal.priceTicks,
          low: deal.priceTicks,
          close: deal.priceTicks,
          volumeLots: BigInt(deal.amountLots),
          volumeTickLots: BigInt(deal.priceTicks) * BigInt(deal.amountLots),
          firstSeq: deal.tradeSeq,
          lastSeq: deal.tradeSeq,
        }),
      );
    }
  }
  return [...rows.values()];
}

function merge(a: CandleRow | undefined, b: CandleRow): CandleRow {
  if (a === undefined) return b;
  const [first, last] = [a.firstSeq <= b.firstSeq ? a : b, a.lastSeq >= b.lastSeq ? a : b];
  return {
    ...a,
    open: first.open,
    firstSeq: first.firstSeq,
    close: last.close,
    lastSeq: last.lastSeq,
    high: Math.max(a.high, b.high),
    low: Math.min(a.low, b.low),
    volumeLots: a.volumeLots + b.volumeLots,
    volumeTickLots: a.volumeTickLots + b.volumeTickLots,
  };
}

/** Stored rollup candles (oldest first) folded into candles of `interval`; empty buckets are left out. */
export function foldCandles(interval: Interval, stored: readonly Candle[]): Candle[] {
  const candles: Candle[] = [];
  let current: Candle | undefined;
  let currentEnd = 0;
  for (const { bucketMs, ...row } of stored) {
    if (current !== undefined && bucketMs < currentEnd) {
      current = {
        ...current,
        high: Math.max(current.high, row.high),
        low: Math.min(current.low, row.low),
        close: row.close,
        volumeLots: current.volumeLots + row.volumeLots,
        volumeTickLots: current.volumeTickLots + row.volumeTickLots,
      };
      candles[candles.length - 1] = current;
      continue;
    }
    const start = bucketStart(interval, bucketMs);
    currentEnd = nextBucket(interval, start);
    current = { bucketMs: start, ...row };
    candles.push(current);
  }
  return candles;
}
