import assert from "node:assert/strict";
import { afterAll, beforeAll, describe, it } from "vitest";
import { CANDLE_INTERVALS } from "../../indexer/candles.ts";
import { holding, poolCandle, swap } from "../../indexer/schema.ts";
import { createTestDatabase, type TestDatabase } from "../../support/api/database.ts";
import { addressOf, swapRow } from "../../support/api/fixtures.ts";
import { candleRows } from "./candles.ts";
import { holderRows } from "./holders.ts";
import { tradeRows } from "./trades.ts";

/**
 * The pool reads' queries, planned by PostgreSQL (PGlite) with statistics and sequential scans
 * allowed, as a PostgreSQL server with autovacuum would plan them (Ponder's PGlite plans with
 * sequential scans off, which only makes an index likelier): pages are read from an index in
 * list order, not by scanning and sorting the table.
 */

const POOLS = 3;
const ROWS = 2_000;
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  const db = database.db;
  for (let p = 1; p <= POOLS; p++) {
    const swaps = Array.from({ length: ROWS }, (_, i) =>
      swapRow(
        {
          n: p * ROWS + i,
          tokenN: p,
          isBuy: i % 2 === 0,
          amountIn: 10n ** 18n,
          amountOut: 10n ** 6n,
          timestamp: 1_700_000_000 + i * 12,
          block: i + 1,
        },
        i + 1,
      ),
    );
    const balances = Array.from({ length: ROWS }, (_, i) => ({
      token: addressOf(p),
      account: addressOf(10_000 + i),
      balance: BigInt((i * 7919) % 1000),
    }));
    const candles = CANDLE_INTERVALS.flatMap((interval) =>
      Array.from({ length: ROWS / 10 }, (_, i) => ({
        pool: addressOf(1000 + p),
        interval,
        bucketStart: 1_700_000_000 + i * 60,
        open: 1n,
        high: 1n,
        low: 1n,
        close: 1n,
        volumePair: 1n,
        volumeToken: 1n,
        trades: 1,
      })),
    );
    for (let i = 0; i < ROWS; i += 500) {
      await db.insert(swap).values(swaps.slice(i, i + 500));
      await db.insert(holding).values(balances.slice(i, i + 500));
    }
    for (let i = 0; i < candles.length; i += 500) await db.insert(poolCandle).values(candles.slice(i, i + 500));
  }
  await database.client.exec("ANALYZE; SET enable_seqscan = on;");
});

afterAll(() => database.close());

async function plan(query: { toSQL(): { sql: string; params: unknown[] } }) {
  const { sql, params } = query.toSQL();
  const result = await database.client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${sql}`, params);
  return result.rows.map((row) => row["QUERY PLAN"]).join("\n");
}

describe("query plans of the pool reads", () => {
  it("trades: a deep page is a range of the (pool, seq) index", async () => {
    const text = await plan(tradeRows(database.db, addressOf(1002), 101, 120));
    assert.match(text, /Index Scan Backward using swap_pool_seq\w* on swap/, text);
    assert.doesNotMatch(text, /Seq Scan|Sort/, text);
  });

  it("holders: the page walks the (token, balance desc, account) index in list order", async () => {
    // Page 20 skips 380 of the token's 2,000 rows: the index walks them, no sort. (A page near the
    // very end of a small list may rather be sorted from a scan, which the planner then finds cheaper.)
    const text = await plan(holderRows(database.db, addressOf(2), { page: 20, pageSize: 20 }));
    assert.match(text, /Index (Only )?Scan using holding_token_balance_account\w* on holding/, text);
    assert.doesNotMatch(text, /Seq Scan|Sort/, text);
  });

  it("candles: a range of the (pool, interval, bucket start) primary key", async () => {
    // At most MAX_CANDLES rows come back, so the planner may sort them after a bitmap scan.
    const text = await plan(candleRows(database.db, addressOf(1003), "minute", 1_700_000_000, 1_700_006_000));
    assert.match(text, /Index Scan using pool_candle_pkey on pool_candle|Bitmap Index Scan on pool_candle_pkey/, text);
    assert.doesNotMatch(text, /Seq Scan/, text);
  });
});
