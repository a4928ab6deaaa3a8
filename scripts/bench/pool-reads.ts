// Latency of a pool's trades, holders and candles at depth, in process on PGlite (no chain, no Ponder):
//   node scripts/bench/pool-reads.ts [rows=100000] [runs=200] [analyze]
// One pool with `rows` swaps (one candle row per minute and interval) and a token with `rows`
// holders. Prints p50/p99 of page 1 and of the last full page, and their ratio. Without
// "analyze" the tables have no planner statistics, as under Ponder on PGlite (no autovacuum).
import { createEcosystemApi } from "../../api/index.ts";
import { CANDLE_INTERVALS } from "../../indexer/candles.ts";
import { holderCount, holding, pool, poolCandle, swap } from "../../indexer/schema.ts";
import { createTestDatabase } from "../../support/api/database.ts";
import { addressOf, insertToken, setChainHead, swapRow } from "../../support/api/fixtures.ts";
import { eq } from "drizzle-orm";

const rows = Number(process.argv[2] ?? 100_000);
const runs = Number(process.argv[3] ?? 200);
const T0 = 1_700_000_000;

const database = await createTestDatabase();
const db = database.db;
let t0 = performance.now();
await insertToken(db, { n: 1, symbol: "ALPHA", spawnedAt: T0 });
const BATCH = 1_000;
for (let i = 0; i < rows; i += BATCH) {
  const size = Math.min(BATCH, rows - i);
  await db.insert(swap).values(
    Array.from({ length: size }, (_, k) =>
      swapRow(
        {
          n: i + k,
          tokenN: 1,
          isBuy: (i + k) % 2 === 0,
          amountIn: 10n ** 6n,
          amountOut: 10n ** 18n,
          timestamp: T0 + (i + k) * 12,
          block: i + k + 1,
        },
        i + k + 1,
      ),
    ),
  );
  await db.insert(holding).values(
    Array.from({ length: size }, (_, k) => ({
      token: addressOf(1),
      account: addressOf(100_000 + i + k),
      balance: BigInt(((i + k) * 7_919) % 100_000) + 1n,
    })),
  );
}
// Candles: a minute row per 5 swaps, and one row per bucket of each longer interval.
const candles = CANDLE_INTERVALS.flatMap((interval) =>
  Array.from({ length: Math.ceil(rows / 5) }, (_, i) => ({
    pool: addressOf(1001),
    interval,
    bucketStart: T0 + i * 60,
    open: 1n,
    high: 2n,
    low: 1n,
    close: 2n,
    volumePair: 5n,
    volumeToken: 5n,
    trades: 5,
  })),
);
for (let i = 0; i < candles.length; i += BATCH) await db.insert(poolCandle).values(candles.slice(i, i + BATCH));
await db
  .update(pool)
  .set({ swapCount: rows })
  .where(eq(pool.address, addressOf(1001)));
await db.insert(holderCount).values({ token: addressOf(1), holders: rows });
await setChainHead(db, T0 + rows * 12);
if (process.argv[4] === "analyze") await database.client.exec("ANALYZE");
console.log(
  `inserted ${rows} swaps, holders and ${candles.length} candle rows in ${Math.round(performance.now() - t0)} ms`,
);

const app = createEcosystemApi({ db, rateLimitPerMinute: 1e9 });

async function measure(path: string) {
  for (let i = 0; i < 20; i++) await app.request(path);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    t0 = performance.now();
    const res = await app.request(path);
    const body = (await res.json()) as { items?: unknown[] } | unknown[];
    times.push(performance.now() - t0);
    const items = Array.isArray(body) ? body : body.items;
    if (res.status !== 200 || !items?.length) throw new Error(`${path}: ${res.status}, ${items?.length} items`);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { p50: at(0.5), p99: at(0.99) };
}

const base = `/api/launchpad/tokens/${addressOf(1)}`;
const last = Math.floor(rows / 100);
const minutes = (from: number) => `${base}/candles?interval=minute&start=${from}&end=${from + 4_999 * 60}`;
const cases: [string, string, string][] = [
  ["trades", `${base}/trades?pageSize=100`, `${base}/trades?pageSize=100&page=${last}`],
  ["holders", `${base}/holders?pageSize=100`, `${base}/holders?pageSize=100&page=${last}`],
  ["candles (5,000)", minutes(T0), minutes(T0 + Math.max(0, Math.ceil(rows / 5) - 5_000) * 60)],
];
for (const [name, first, deep] of cases) {
  const a = await measure(first);
  const b = await measure(deep);
  const f = (x: number) => x.toFixed(2).padStart(7);
  console.log(
    `${name.padEnd(16)} first p50 ${f(a.p50)} p99 ${f(a.p99)} ms | last p50 ${f(b.p50)} p99 ${f(b.p99)} ms | p99 ratio ${(b.p99 / a.p99).toFixed(2)}`,
  );
}
await database.close();
