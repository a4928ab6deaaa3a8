// Latency of /api/agents/action-logs at depth, in process on PGlite (no chain, no Ponder):
//   node scripts/bench/action-log-query.ts [rows=100000] [runs=200] [analyze|vacuum]
// Prints p50/p99 of page 1 and of deep pages, unfiltered and filtered, and their ratio. By
// default the tables have no planner statistics, as under Ponder on PGlite (no autovacuum);
// "analyze" or "vacuum" measures what a PostgreSQL server with autovacuum would see.
import { createEcosystemApi } from "../../api/index.ts";
import { createTestDatabase } from "../../support/api/database.ts";
import { type ActionFixture, insertActions, setChainHead } from "../../support/api/fixtures.ts";

const rows = Number(process.argv[2] ?? 100_000);
const runs = Number(process.argv[3] ?? 200);
const TYPES = ["trade", "rebalance", "flag", "directive", "config_update", "override"];
const TIERS = ["worker", "worker", "worker", "scout", "queen"] as const;

const database = await createTestDatabase();
const actions: ActionFixture[] = Array.from({ length: rows }, (_, i) => ({
  entryId: i + 1,
  targetTokenId: BigInt(101 + (i % 50)),
  sourceTier: TIERS[i % 5]!,
  actionType: TYPES[i % 6]!,
  timestamp: 1_700_000_000 + i * 12,
  payload: { side: "buy", amountIn: String(i * 1000), asset: "mUSD" },
}));
let t0 = performance.now();
await insertActions(database.db, actions);
await setChainHead(database.db, 1_700_000_000 + rows * 12);
const maintenance = process.argv[4];
if (maintenance === "analyze") await database.client.exec("ANALYZE");
if (maintenance === "vacuum") await database.client.exec("VACUUM ANALYZE");
console.log(`inserted ${rows} actions in ${Math.round(performance.now() - t0)} ms`);

const app = createEcosystemApi({ db: database.db, rateLimitPerMinute: 1e9 });

async function measure(path: string) {
  for (let i = 0; i < 20; i++) await app.request(path);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    t0 = performance.now();
    const res = await app.request(path);
    await res.arrayBuffer();
    times.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { p50: at(0.5), p99: at(0.99) };
}

const cases: [string, string, string][] = [
  [
    "unfiltered",
    "/api/agents/action-logs?pageSize=100",
    `/api/agents/action-logs?pageSize=100&page=${Math.floor(rows / 100) - 1}`,
  ],
  [
    "unfiltered middle",
    "/api/agents/action-logs?pageSize=20",
    `/api/agents/action-logs?pageSize=20&page=${Math.floor(rows / 40)}`,
  ],
  [
    "tokenId",
    "/api/agents/action-logs?tokenId=101&pageSize=20",
    `/api/agents/action-logs?tokenId=101&pageSize=20&page=${Math.floor(rows / 50 / 20 / 2)}`,
  ],
  [
    "sourceTier",
    "/api/agents/action-logs?sourceTier=worker&pageSize=20",
    `/api/agents/action-logs?sourceTier=worker&pageSize=20&page=${Math.floor((rows * 0.6) / 20 / 2)}`,
  ],
  [
    "actionType",
    "/api/agents/action-logs?actionType=flag&pageSize=100",
    `/api/agents/action-logs?actionType=flag&pageSize=100&page=${Math.floor(rows / 6 / 100) - 1}`,
  ],
  [
    "since/until",
    `/api/agents/action-logs?since=${1_700_000_000 + rows * 3}&until=${1_700_000_000 + rows * 9}`,
    `/api/agents/action-logs?since=${1_700_000_000 + rows * 3}&until=${1_700_000_000 + rows * 9}&page=${Math.floor(rows / 2 / 20) - 1}`,
  ],
];
for (const [name, first, deep] of cases) {
  const a = await measure(first);
  const b = await measure(deep);
  const f = (x: number) => x.toFixed(2).padStart(7);
  console.log(
    `${name.padEnd(18)} page 1 p50 ${f(a.p50)} p99 ${f(a.p99)} ms | deep p50 ${f(b.p50)} p99 ${f(b.p99)} ms | p99 ratio ${(b.p99 / a.p99).toFixed(2)}`,
  );
}
await database.close();
