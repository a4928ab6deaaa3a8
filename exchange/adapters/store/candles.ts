import { bucketStart, sourceLevel, type Interval } from "../../core/candles/intervals.ts";
import { foldCandles, type Candle, type CandleRow } from "../../core/candles/rollup.ts";
import type { Queryable } from "./types.ts";

// The OHLC rollup's SQL: the upsert the committer runs with every batch of deals, and the read
// of GET /api/ohlc. The math (what a row holds, how rows merge and fold) is core/candles.

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

/** The upsert of rollup rows given as JSON in parameter `param` ("$1"); the merge rule is rollup.ts `merge`. */
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
  return foldCandles(
    interval,
    records.map((record) => ({
      bucketMs: Number(record.bucket_ms),
      open: Number(record.open_ticks),
      high: Number(record.high_ticks),
      low: Number(record.low_ticks),
      close: Number(record.close_ticks),
      volumeLots: BigInt(record.volume_lots),
      volumeTickLots: BigInt(record.volume_tick_lots),
    })),
  );
}
