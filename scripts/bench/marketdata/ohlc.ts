import { candleRowsOf, type Candle } from "../../../exchange/core/candles/index.ts";
import { readCandles, upsertCandles } from "../../../exchange/adapters/store/index.ts";
import type { Db, DealRow } from "../../../exchange/adapters/store/index.ts";

// OHLC from the stored rollup (what GET /api/ohlc reads) against the same candles computed by a
// GROUP BY over the raw deals. The deals are one generate_series insert: a million single-row
// inserts would take PGlite many minutes. Their prices and sizes come from integer formulas of
// the row number and the seed that JavaScript and SQL compute identically, so the rollup rows are
// built by the exchange's own candleRowsOf/upsertCandles over the same deals, in commit-sized
// batches, as the live path builds them; the GROUP BY then checks that they agree.

const PAIR = "BETA_USDT"; // untraded in the bench: the exchange's in-memory state never meets these rows
const START_MS = Date.UTC(2025, 0, 1);
const SPAN_MS = 30 * 86_400_000;
const HOUR_MS = 3_600_000;
const BATCH = 50_000;
const ZERO_UUID = "00000000-0000-4000-8000-000000000000";

/** Deal i (1-based) of a seed: a slow triangle wave of prices with noise, sizes 1..50 BETA. */
function formula(seed: number) {
  return {
    price: (i: number) => 4000 + 10 * Math.abs((Math.floor(i / 5000) % 200) - 100) + ((i * 7919 + seed) % 97),
    lots: (i: number) => 100 + ((i * 104729 + seed * 31) % 5000),
    takerIsBid: (i: number) => (i * 31 + seed) % 2 === 0,
  };
}
const SQL_PRICE = "4000 + 10 * abs(((i / 5000) % 200) - 100) + ((i * 7919 + $1) % 97)";
const SQL_LOTS = "100 + ((i * 104729 + $1 * 31) % 5000)";
const SQL_TAKER_IS_BID = "(i * 31 + $1) % 2 = 0";

export interface OhlcResult {
  readonly deals: number;
  readonly candleRows: number;
  readonly insertS: number;
  readonly rollupS: number;
  readonly candles: number;
  readonly rollupMs: number;
  readonly groupByMs: number;
}

export async function benchOhlc(
  db: Db,
  opts: { seed: number; deals: number; runs: number; log: (msg: string) => void },
): Promise<OhlcResult> {
  const { seed, deals: n } = opts;
  const stepUs = Math.floor((SPAN_MS * 1000) / n);
  const began = performance.now();
  await db.query(
    `insert into deals (id, pair_code, trade_seq, price_ticks, amount_lots, taker_is_bid, maker_order_id, taker_order_id, maker_user_id, taker_user_id, maker_fee, taker_fee, executed_at_us)
     select md5('bench-deal-' || i)::uuid, '${PAIR}', i, ${SQL_PRICE}, ${SQL_LOTS}, ${SQL_TAKER_IS_BID}, $2::uuid, $2::uuid, $2::uuid, $2::uuid, 0, 0, $3::bigint + i * $4::bigint
     from generate_series(1::bigint, $5::bigint) as i`,
    [seed, ZERO_UUID, START_MS * 1000, stepUs, n],
  );
  const insertS = (performance.now() - began) / 1000;
  opts.log(`  inserted ${n.toLocaleString("en-US")} deals in ${insertS.toFixed(1)} s`);

  const f = formula(seed);
  let candleRows = 0;
  const rollupBegan = performance.now();
  for (let from = 1; from <= n; from += BATCH) {
    const batch: DealRow[] = [];
    for (let i = from; i < Math.min(from + BATCH, n + 1); i++) {
      const [priceTicks, amountLots] = [f.price(i), f.lots(i)];
      batch.push({
        id: ZERO_UUID,
        pairCode: PAIR,
        tradeSeq: i,
        priceTicks,
        amountLots,
        takerIsBid: f.takerIsBid(i),
        makerOrderId: ZERO_UUID,
        takerOrderId: ZERO_UUID,
        makerUserId: ZERO_UUID,
        takerUserId: ZERO_UUID,
        makerFee: 0n,
        takerFee: 0n,
        executedAtUs: START_MS * 1000 + i * stepUs,
      });
    }
    const rows = candleRowsOf(batch);
    await upsertCandles(db, rows);
    candleRows += rows.length;
  }
  const rollupS = (performance.now() - rollupBegan) / 1000;
  opts.log(
    `  rolled up into ${candleRows.toLocaleString("en-US")} candle rows (minute, hour, day) in ${rollupS.toFixed(1)} s`,
  );

  const endMs = START_MS + SPAN_MS + HOUR_MS; // past the last deal
  const viaRollup = () => readCandles(db, PAIR, "hour", START_MS, endMs);
  const viaGroupBy = () => groupBy(db, START_MS, endMs);
  const rollup = await viaRollup();
  const raw = await viaGroupBy();
  if (JSON.stringify(rollup, bigints) !== JSON.stringify(raw, bigints))
    throw new Error("the rollup's hour candles differ from the GROUP BY over the deals");
  await checkMinutes(db, seed);
  opts.log(`  the rollup agrees with a GROUP BY over the deals (${rollup.length} hour candles, 5 minute candles)`);

  return {
    deals: n,
    candleRows,
    insertS,
    rollupS,
    candles: rollup.length,
    rollupMs: await medianMs(viaRollup, opts.runs),
    groupByMs: await medianMs(viaGroupBy, opts.runs),
  };
}

/** GET /api/ohlc's hour candles computed from raw deals: open/close are the price at the lowest/highest trade_seq. */
async function groupBy(db: Db, startMs: number, endMs: number, bucketMs = HOUR_MS): Promise<Candle[]> {
  const records = await db.query<Record<string, string>>(
    `select (executed_at_us / $4::bigint * $4::bigint / 1000)::text as bucket_ms,
       ((min(array[trade_seq, price_ticks]))[2])::text as open, max(price_ticks)::text as high, min(price_ticks)::text as low,
       ((max(array[trade_seq, price_ticks]))[2])::text as close, sum(amount_lots)::text as volume_lots, sum(price_ticks * amount_lots)::text as volume_tick_lots
     from deals where pair_code = $1 and executed_at_us >= $2 and executed_at_us < $3
     group by 1 order by 1`,
    [PAIR, startMs * 1000, endMs * 1000, bucketMs * 1000],
  );
  return records.map((r) => ({
    bucketMs: Number(r.bucket_ms),
    open: Number(r.open),
    high: Number(r.high),
    low: Number(r.low),
    close: Number(r.close),
    volumeLots: BigInt(r.volume_lots),
    volumeTickLots: BigInt(r.volume_tick_lots),
  }));
}

/** Five minute candles of the rollup, picked by the seed, against the GROUP BY of their minute. */
async function checkMinutes(db: Db, seed: number): Promise<void> {
  for (let k = 1; k <= 5; k++) {
    const minute = START_MS + ((seed + k * 7_919) % (SPAN_MS / 60_000)) * 60_000;
    const stored = await readCandles(db, PAIR, "minute", minute, minute);
    const raw = await groupBy(db, minute, minute + 60_000, 60_000);
    if (JSON.stringify(stored, bigints) !== JSON.stringify(raw, bigints))
      throw new Error(`minute candle ${new Date(minute).toISOString()} differs from its GROUP BY`);
  }
}

const bigints = (_key: string, value: unknown) => (typeof value === "bigint" ? value.toString() : value);

async function medianMs(run: () => Promise<unknown>, runs: number): Promise<number> {
  await run(); // warm-up: plans and pages cached for both sides alike
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const began = performance.now();
    await run();
    times.push(performance.now() - began);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}
