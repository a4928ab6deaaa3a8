import { libraryEngine, ourEngine, type EngineUnderTest } from "./engine-adapters.ts";
import { generateStream, type StreamOp } from "./engine-stream.ts";
import { benchFullPath, FULL_PATH_TARGET, type FullPathResult } from "./full-path.ts";

// npm run bench:engine -- [ops] : the matching engine alone against nodejs-order-book
// on one generated stream, then the full path (HTTP + signature + matching + commit) in
// orders/s on embedded PGlite and, when DATABASE_URL is set, on PostgreSQL. Throughput and latency are separate passes because
// reading the clock around every op costs about as much as a small op itself.

const TARGET_RATIO = 1.5;
const REPETITIONS = 5;
const SEED = 20260429;
const opCount = Number(process.argv[2] ?? 200_000);

interface Measurement {
  opsPerSecond: number;
  p50Micros: number;
  p99Micros: number;
}

function throughput(engine: ReturnType<EngineUnderTest["prepare"]>, count: number): number {
  const book = engine.start();
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) book.run(i);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return count / seconds;
}

function latencies(engine: ReturnType<EngineUnderTest["prepare"]>, count: number): Float64Array {
  const book = engine.start();
  const micros = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const started = process.hrtime.bigint();
    book.run(i);
    micros[i] = Number(process.hrtime.bigint() - started) / 1e3;
  }
  return micros.sort();
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function measure(engine: EngineUnderTest, prefill: StreamOp[], ops: StreamOp[]): Measurement {
  const prepared = engine.prepare(prefill, ops);
  throughput(prepared, ops.length); // warm-up: let the JIT settle before anything counts
  latencies(prepared, ops.length);
  const rates: number[] = [];
  const p50s: number[] = [];
  const p99s: number[] = [];
  for (let round = 0; round < REPETITIONS; round++) {
    rates.push(throughput(prepared, ops.length));
    const sorted = latencies(prepared, ops.length);
    p50s.push(sorted[Math.floor(sorted.length * 0.5)]);
    p99s.push(sorted[Math.floor(sorted.length * 0.99)]);
  }
  return { opsPerSecond: median(rates), p50Micros: median(p50s), p99Micros: median(p99s) };
}

function booksAgree(prefill: StreamOp[], ops: StreamOp[]): boolean {
  const [ours, theirs] = [ourEngine, libraryEngine].map((engine) => {
    const book = engine.prepare(prefill, ops).start();
    for (let i = 0; i < ops.length; i++) book.run(i);
    return book.restingDigest();
  });
  return ours === theirs;
}

const { prefill, ops, averageResting, trades } = generateStream(SEED, opCount);
const counts = { limit: 0, market: 0, cancel: 0 };
for (const op of ops) counts[op.kind]++;
const percent = (part: number) => `${((100 * part) / ops.length).toFixed(1)}%`;
console.log(`stream: seed ${SEED}, ${ops.length} ops after ${prefill.length} prefill orders`);
console.log(
  `  ${percent(counts.limit)} limit, ${percent(counts.cancel)} cancel, ${percent(counts.market)} market; ` +
    `${trades} trades; ${averageResting} resting orders on average`,
);
console.log(`  same final book in both engines: ${booksAgree(prefill, ops) ? "yes" : "NO"}`);
console.log(`median of ${REPETITIONS} runs after a warm-up run (Node ${process.version})`);

const results = [ourEngine, libraryEngine].map((engine) => ({ engine, result: measure(engine, prefill, ops) }));
for (const { engine, result } of results) {
  console.log(
    `  ${engine.name.padEnd(28)} ${Math.round(result.opsPerSecond).toLocaleString("en-US").padStart(11)} ops/s` +
      `   p50 ${result.p50Micros.toFixed(2)} us   p99 ${result.p99Micros.toFixed(2)} us`,
  );
}
const [ours, library] = results.map(({ result }) => result);
const ratio = ours.opsPerSecond / library.opsPerSecond;
console.log(`ratio ops/s: ${ratio.toFixed(2)}x (p99: ${(library.p99Micros / ours.p99Micros).toFixed(2)}x lower)`);
console.log(`target >= ${TARGET_RATIO}x: ${ratio >= TARGET_RATIO ? "met" : "NOT met"}`);

// The full path. Knobs: BENCH_FULL_PATH_ORDERS (signed orders measured), BENCH_FULL_PATH_CONNECTIONS (in flight).
// On PGlite always (the default every new user runs), and on PostgreSQL too when DATABASE_URL is
// set, one after the other in this run: issue 29's ratio is PGlite's orders/s over PostgreSQL's.
const fullPathOrders = Number(process.env.BENCH_FULL_PATH_ORDERS ?? 20_000);
const connections = Number(process.env.BENCH_FULL_PATH_CONNECTIONS ?? 32);
const databaseUrl = process.env.DATABASE_URL || undefined;
const PGLITE_RATIO_TARGET = 0.6;
const PGLITE_P99_TARGET_MS = 50;
console.log(
  `\nfull path: ${fullPathOrders} signed limit orders on ${"ALPHA_USDT"} from 8 users, ${connections} in flight, seed ${SEED}`,
);
console.log(`  server process: HTTP + HMAC check + validation + matching + ledger + group commit before each answer`);
const runs = [await benchFullPath({ seed: SEED, orders: fullPathOrders, connections, databaseUrl: undefined })];
if (databaseUrl) runs.push(await benchFullPath({ seed: SEED, orders: fullPathOrders, connections, databaseUrl }));
for (const full of runs)
  console.log(
    `  ${full.backend.padEnd(10)} ${Math.round(full.ordersPerSecond).toLocaleString("en-US").padStart(8)} orders/s   p50 ${full.p50Ms} ms   p99 ${full.p99Ms} ms` +
      `   ${full.deals} deals   ${full.non2xx} non-2xx   ledger ${full.ledgerBalanced ? "balanced" : "NOT BALANCED"}`,
  );
const [pglite, postgres] = runs as [FullPathResult, FullPathResult | undefined];
console.log(
  `target p99 <= ${PGLITE_P99_TARGET_MS} ms on PGlite: ${pglite.p99Ms <= PGLITE_P99_TARGET_MS ? "met" : "NOT met"} (${pglite.p99Ms} ms)`,
);
if (postgres) {
  const ratio = pglite.ordersPerSecond / postgres.ordersPerSecond;
  console.log(
    `target >= ${FULL_PATH_TARGET} orders/s on PostgreSQL: ${postgres.ordersPerSecond >= FULL_PATH_TARGET ? "met" : "NOT met"}`,
  );
  console.log(
    `target PGlite >= ${PGLITE_RATIO_TARGET}x PostgreSQL: ${ratio.toFixed(2)}x ${ratio >= PGLITE_RATIO_TARGET ? "met" : "NOT met"}`,
  );
} else
  console.log("set DATABASE_URL for the PostgreSQL run, its 2,000 orders/s target and the PGlite/PostgreSQL ratio");
