import { and, asc, eq, gte, lte } from "ponder";
import { bucketCount } from "../../exchange/core/candles/index.ts";
import { type CandleInterval, candleBucket } from "../../indexer/candles.ts";
import { poolCandle } from "../../indexer/schema.ts";
import { invalidParam, MAX_CANDLES } from "../../lib/http/index.ts";
import type { Db } from "../db.ts";
import { findToken } from "../shared/token-lookup.ts";
import { formatAmount, pairDecimalsOf, scaledPrice, TOKEN_DECIMALS } from "../shared/units.ts";
import type { Candle } from "./routes.ts";

export interface CandleQuery {
  interval: CandleInterval;
  /** Unix seconds, inclusive. */
  start: number;
  end: number;
}

/** bucket_start is an int4: later bounds are clamped, not compared as overflowing parameters. */
const MAX_INT4 = 2_147_483_647;

/**
 * A pool's candles of one interval overlapping [start, end], oldest first: the rows the indexer's
 * rollup keeps (pool_candle), one per bucket with trades, read through its primary key. The
 * checks and their order are /api/ohlc's: unknown token, end before start, too many intervals.
 */
export async function poolCandles(db: Db, tokenRef: string, query: CandleQuery): Promise<Candle[]> {
  const { pool: p } = await findToken(db, tokenRef);
  if (query.end < query.start) throw invalidParam("end", "must not be before start");
  if (bucketCount(query.interval, query.start * 1000, query.end * 1000) > MAX_CANDLES) {
    throw invalidParam(
      "end",
      `the range spans more than ${MAX_CANDLES} ${query.interval} intervals; split it into several calls`,
    );
  }
  const rows = await candleRows(
    db,
    p.address,
    query.interval,
    Math.max(-MAX_INT4, candleBucket(query.interval, query.start)),
    Math.min(MAX_INT4, query.end),
  );
  const decimals = pairDecimalsOf(p.side);
  return rows.map((row) => ({
    date: new Date(row.bucketStart * 1000).toISOString().slice(0, 19),
    time: row.bucketStart,
    open: scaledPrice(row.open, decimals),
    max: scaledPrice(row.high, decimals),
    min: scaledPrice(row.low, decimals),
    close: scaledPrice(row.close, decimals),
    volume: formatAmount(row.volumePair, decimals),
    volumeBase: formatAmount(row.volumeToken, TOKEN_DECIMALS),
  }));
}

/** A pool's stored candles of one interval with from <= bucket start <= to (exported for the query-plan test). */
export const candleRows = (db: Db, poolAddress: `0x${string}`, interval: CandleInterval, from: number, to: number) =>
  db
    .select({
      bucketStart: poolCandle.bucketStart,
      open: poolCandle.open,
      high: poolCandle.high,
      low: poolCandle.low,
      close: poolCandle.close,
      volumePair: poolCandle.volumePair,
      volumeToken: poolCandle.volumeToken,
    })
    .from(poolCandle)
    .where(
      and(
        eq(poolCandle.pool, poolAddress),
        eq(poolCandle.interval, interval),
        gte(poolCandle.bucketStart, from),
        lte(poolCandle.bucketStart, to),
      ),
    )
    .orderBy(asc(poolCandle.bucketStart));
