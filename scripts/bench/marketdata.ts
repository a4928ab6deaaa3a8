/**
 * `npm run bench:marketdata`: the public market-data endpoints under load, and the OHLC rollup
 * against a GROUP BY over raw deals.
 *
 * 1. An exchange in this process on PGlite (or a fresh schema of DATABASE_URL), the demo reference
 *    data, and an ALPHA_USDT market made by matched orders: a few hundred resting, thousands of deals.
 * 2. autocannon on /api/healthcheck (the baseline: no work behind it), /api/orderbook,
 *    /api/tickers, /api/deals and /api/ohlc, each compared with the healthcheck's req/s.
 * 3. BENCH_DEALS deals bulk-inserted with their rollup candles; readCandles (what /api/ohlc does)
 *    timed against the equivalent GROUP BY over the deals.
 *
 * Knobs: scripts/bench/marketdata/config.ts. It is a report: the exit code is 0 whether or not
 * the targets are met, non-zero only when the run itself fails.
 */
import { readConfig } from "./marketdata/config.ts";
import { startBenchExchange } from "./marketdata/exchange.ts";
import { load, type LoadResult } from "./marketdata/load.ts";
import { fillMarket, PAIR } from "./marketdata/market.ts";
import { benchOhlc } from "./marketdata/ohlc.ts";

const LOAD_TARGET = 0.5; // orderbook, tickers, deals and ohlc: at least half the healthcheck's req/s
const OHLC_TARGET = 20; // the rollup at least 20x faster than the GROUP BY

const cfg = readConfig();
const began = performance.now();
const log = (msg: string) =>
  console.log(`[bench ${((performance.now() - began) / 1000).toFixed(0).padStart(4)} s] ${msg}`);
const int = (n: number) => Math.round(n).toLocaleString("en-US");

/** Left-aligned first column, right-aligned others. */
function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows
    .map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("   "))
    .join("\n");
}

log(
  `seed ${cfg.BENCH_SEED}; ${cfg.BENCH_CONNECTIONS} connections x ${cfg.BENCH_DURATION_S} s per endpoint; ${int(cfg.BENCH_DEALS)} bulk deals`,
);
const bench = await startBenchExchange(cfg);
const stop = () => void bench.close().finally(() => process.exit(130));
process.once("SIGINT", stop);
process.once("SIGTERM", stop);

try {
  const { running } = bench;
  log(`exchange on ${bench.backend} at ${running.url}; filling ${PAIR}...`);
  const market = await fillMarket(running.exchange, {
    seed: cfg.BENCH_SEED,
    deals: cfg.BENCH_TRADES,
    resting: cfg.BENCH_RESTING,
  });
  log(
    `  ${int(market.deals)} deals; ${market.restingOrders} resting orders on ${market.bidLevels} bid and ${market.askLevels} ask levels`,
  );

  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19);
  const q = `currencyPairCode=${PAIR}`;
  const endpoints: [string, string][] = [
    ["healthcheck", "/api/healthcheck"],
    ["orderbook", `/api/orderbook?${q}`],
    ["tickers", `/api/tickers?${q}`],
    ["deals", `/api/deals?${q}`],
    ["ohlc", `/api/ohlc?${q}&interval=hour&start=${iso(Date.now() - 86_400_000)}&end=${iso(Date.now() + 60_000)}`],
  ];
  const results: LoadResult[] = [];
  for (const [name, path] of endpoints) {
    const body = await fetch(`${running.url}${path}`).then((r) => r.text());
    log(`load ${path} (${int(body.length)} bytes a response)...`);
    results.push(
      await load(running.url, name, path, { durationS: cfg.BENCH_DURATION_S, connections: cfg.BENCH_CONNECTIONS }),
    );
  }

  log(`OHLC: ${int(cfg.BENCH_DEALS)} deals and their rollup...`);
  const ohlc = await benchOhlc(running.db, {
    seed: cfg.BENCH_SEED,
    deals: cfg.BENCH_DEALS,
    runs: cfg.BENCH_OHLC_RUNS,
    log,
  });

  const baseline = results[0].requestsPerSecond;
  const ratioOf = (name: string) => results.find((r) => r.name === name)!.requestsPerSecond / baseline;
  const speedup = ohlc.groupByMs / ohlc.rollupMs;
  const verdict = (ok: boolean) => (ok ? "MET" : "MISSED");
  console.log(
    `\nmarket data on ${bench.backend}, seed ${cfg.BENCH_SEED}; ${PAIR}: ${int(market.deals)} deals, ${market.restingOrders} resting orders`,
  );
  console.log(
    `\nLoad: ${cfg.BENCH_CONNECTIONS} connections, ${cfg.BENCH_DURATION_S} s per endpoint after a 1 s warm-up\n`,
  );
  console.log(
    table([
      ["endpoint", "req/s", "p99 ms", "x healthcheck"],
      ...results.map((r) => [
        r.path.split("?")[0],
        int(r.requestsPerSecond),
        r.p99Ms < 1 ? "<1" : r.p99Ms.toFixed(0),
        (r.requestsPerSecond / baseline).toFixed(2),
      ]),
    ]),
  );
  console.log(
    `\nOHLC: hour candles over 30 days of ${int(ohlc.deals)} deals (${ohlc.candles} candles), median of ${cfg.BENCH_OHLC_RUNS} runs\n`,
  );
  console.log(
    table([
      ["query", "ms"],
      ["readCandles (rollup)", ohlc.rollupMs.toFixed(2)],
      ["GROUP BY raw deals", ohlc.groupByMs.toFixed(1)],
      ["ratio", `${speedup.toFixed(0)}x`],
    ]),
  );
  console.log("\nTargets\n");
  console.log(
    table([
      ["target", "measured", "result"],
      [
        `/api/orderbook >= ${LOAD_TARGET}x healthcheck req/s`,
        `${ratioOf("orderbook").toFixed(2)}x`,
        verdict(ratioOf("orderbook") >= LOAD_TARGET),
      ],
      [
        `/api/tickers >= ${LOAD_TARGET}x healthcheck req/s`,
        `${ratioOf("tickers").toFixed(2)}x`,
        verdict(ratioOf("tickers") >= LOAD_TARGET),
      ],
      ...(["deals", "ohlc"] as const).map((name) => [
        `/api/${name} >= ${LOAD_TARGET}x healthcheck req/s`,
        `${ratioOf(name).toFixed(2)}x`,
        verdict(ratioOf(name) >= LOAD_TARGET),
      ]),
      [
        `OHLC rollup >= ${OHLC_TARGET}x faster than GROUP BY`,
        `${speedup.toFixed(0)}x`,
        verdict(speedup >= OHLC_TARGET),
      ],
    ]),
  );
  console.log(`\ntotal ${((performance.now() - began) / 1000).toFixed(0)} s`);
} catch (error) {
  console.error("bench failed:", error);
  process.exitCode = 1;
} finally {
  await bench.close();
}
