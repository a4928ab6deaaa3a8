import type { DealRow, Queryable } from "../store/types.ts";
import { bucketStart, nextBucket, ROLLUP_LEVELS, sourceLevel, type Interval, type RollupLevel } from "./intervals.ts";

// The OHLC rollup: minute, hour and day candles per pair, upserted in the same transaction as the
// deals they summarise (so they survive restarts and never disagree with the deals), and folded
// into the requested interval on read. Prices in ticks, volumes in lots and tick-lots.

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
export function candleRowsOf(deals: readonly DealRow[]): CandleRow[] {
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

/** Rollup rows as the JSON recordset `candleUpsertSql` reads. */
export function candleRowsJson(rows: readonly CandleRow[]): string {
  return JSON.stringify(
    rows.map((row) => ({
      pair_code: row.pairCode,
      level: row.level,
      bucket_ms: row.bucketMs,
      open_ticks: row.open,
      high_ticks: row.high,
      low_ticks: row.low,
      close_ticks: row.close,
      volume_lots: row.volumeLots.toString(),
      volume_tick_lots: row.volumeTickLots.toString(),
      first_seq: row.firstSeq,
      last_seq: row.lastSeq,
    })),
  );
}

/** The upsert of rollup rows given as JSON in parameter `param` ("$1"); the merge rule is `merge` above. */
export function candleUpsertSql(param: string): string {
  return `insert into candles as c (pair_code, level, bucket_ms, open_ticks, high_ticks, low_ticks, close_ticks, volume_lots, volume_tick_lots, first_seq, last_seq)
     select pair_code, level, bucket_ms, open_ticks, high_ticks, low_ticks, close_ticks, volume_lots::numeric, volume_tick_lots::numeric, first_seq, last_seq
     from json_to_recordset(${param}::json) as x(pair_code text, level text, bucket_ms bigint, open_ticks bigint, high_ticks bigint, low_ticks bigint,
       close_ticks bigint, volume_lots text, volume_tick_lots text, first_seq bigint, last_seq bigint)
     on conflict (pair_code, level, bucket_ms) do update set
       open_ticks = case when excluded.first_seq < c.first_seq then excluded.open_ticks else c.open_ticks end,
       first_seq = least(c.first_seq, excluded.first_seq),
       close_ticks = case when excluded.last_seq > c.last_seq then excluded.close_ticks else c.close_ticks end,
       last_seq = greatest(c.last_seq, excluded.last_seq),
       high_ticks = greatest(c.high_ticks, excluded.high_ticks),
       low_ticks = least(c.low_ticks, excluded.low_ticks),
       volume_lots = c.volume_lots + excluded.volume_lots,
       volume_tick_lots = c.volume_tick_lots + excluded.volume_tick_lots`;
}

/** Upserts rollup rows with one statement. */
export async function upsertCandles(tx: Queryable, rows: readonly CandleRow[]): Promise<void> {
  if (rows.length > 0) await tx.query(candleUpsertSql("$1"), [candleRowsJson(rows)]);
}

/** Candles of `interval` whose bucket overlaps [startMs, endMs], oldest first; empty buckets are left out. */
export async function readCandles(
  db: Queryable,
  pairCode: string,
  interval: Interval,
  startMs: number,
  endMs: number,
): Promise<Candle[]> {
  const level = sourceLevel(interval);
  const records = await db.query<Record<string, string>>(
    `select bucket_ms::text as bucket_ms, open_ticks::text as open_ticks, high_ticks::text as high_ticks, low_ticks::text as low_ticks,
       close_ticks::text as close_ticks, volume_lots::text as volume_lots, volume_tick_lots::text as volume_tick_lots
     from candles where pair_code = $1 and level = $2 and bucket_ms >= $3 and bucket_ms <= $4 order by bucket_ms`,
    [pairCode, level, bucketStart(interval, startMs), endMs],
  );
  const candles: Candle[] = [];
  let current: Candle | undefined;
  let currentEnd = 0;
  for (const record of records) {
    const bucketMs = Number(record.bucket_ms);
    const row = {
      open: Number(record.open_ticks),
      high: Number(record.high_ticks),
      low: Number(record.low_ticks),
      close: Number(record.close_ticks),
      volumeLots: BigInt(record.volume_lots),
      volumeTickLots: BigInt(record.volume_tick_lots),
    };
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
