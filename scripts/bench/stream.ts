/**
 * `npm run bench:stream`: commit-to-delivery latency of the exchange's WebSocket streams with many
 * clients while signed orders flow (issue 13: p99 <= 100 ms at 2,000 clients).
 *
 * 1. The exchange as a child process (`node exchange/server/main.ts`, PGlite in a temp dir or a
 *    fresh schema of DATABASE_URL) with the WebSocket and rate limits lifted; two makers and two
 *    takers, the book prefilled (stream/orders.ts).
 * 2. Runs, each with orders at BENCH_STREAM_ORDERS_PER_SECOND (half of them trade) and every client
 *    subscribed to <pair>@trade and <pair>@depth: the baseline with 1 client (the latency floor),
 *    the main run with BENCH_STREAM_CLIENTS, then a search doubling (or halving) the client count
 *    for the largest one whose p99 meets the target. Clients live in threads
 *    (stream/client-thread.ts), the order sender on the main thread, the server alone in its child.
 * 3. With NATS and exchange/gateway/main.ts: a second exchange publishing to NATS, the gateways,
 *    and the same flow with 1 client and with the clients dealt over the gateways.
 *
 * Knobs: stream/config.ts. It is a report: the exit code is 0 whether or not the target is met,
 * non-zero only if the run fails. Children, threads and the temp dir are removed on
 * success, failure and Ctrl-C.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { installSignalHandlers, onCleanup, stopAll } from "./indexer/processes.ts";
import { ClientPool } from "./stream/clients.ts";
import { readConfig } from "./stream/config.ts";
import { measureRun, type RunResult } from "./stream/measure.ts";
import { OrderFlow, setUpTraders } from "./stream/orders.ts";
import { misses, printReport } from "./stream/report.ts";
import {
  gatewaySkipReason,
  printLogTails,
  type Service,
  startExchangeChild,
  startGatewayChild,
  stopService,
} from "./stream/services.ts";

const cfg = readConfig();
const began = performance.now();
const log = (msg: string) =>
  console.log(`[bench ${((performance.now() - began) / 1000).toFixed(0).padStart(4)} s] ${msg}`);
const N = cfg.BENCH_STREAM_CLIENTS;
const TARGET = cfg.BENCH_STREAM_TARGET_P99_MS;
const streams = [`${cfg.BENCH_STREAM_PAIR}@trade`, `${cfg.BENCH_STREAM_PAIR}@depth`];
const backend = cfg.DATABASE_URL ? "PostgreSQL" : "PGlite";

installSignalHandlers();
const tmp = await mkdtemp(join(tmpdir(), "bench-stream-"));
onCleanup(() => (cfg.BENCH_KEEP_TMP ? console.log(`kept ${tmp}`) : rm(tmp, { recursive: true, force: true })));
const pool = new ClientPool(cfg.BENCH_STREAM_CLIENT_THREADS, cfg.BENCH_STREAM_CLIENT_IMPL);
const flows: OrderFlow[] = [];

/** An exchange child with its traders and an order flow on it. */
async function exchangeWithFlow(name: string, natsUrl?: string) {
  const exchange = await startExchangeChild(cfg, tmp, name, natsUrl);
  log(`${name}: ${exchange.url} (pid ${exchange.pid}, ${backend}${natsUrl ? `, publishing to ${natsUrl}` : ""})`);
  const traders = await setUpTraders(exchange.url, cfg.BENCH_STREAM_PAIR, cfg.BENCH_SEED);
  const flow = new OrderFlow(exchange.url, cfg.BENCH_STREAM_PAIR, traders, cfg.BENCH_SEED, cfg.BENCH_STREAM_IN_FLIGHT);
  flows.push(flow);
  return { exchange, flow };
}

async function run(
  name: string,
  urls: string[],
  clients: number,
  durationS: number,
  flow: OrderFlow,
  holders: Service[],
  servers: Service[],
  heap?: () => Promise<number>,
) {
  log(`run "${name}": ${clients} client(s)`);
  const result = await measureRun(
    {
      name,
      targets: Array.from({ length: clients }, (_, i) => urls[i % urls.length]!),
      durationS,
      holders: holders.map((s) => s.pid),
      servers: servers.map((s) => s.pid),
      heap,
    },
    pool,
    flow,
    {
      streams,
      batch: cfg.BENCH_STREAM_CONNECT_BATCH,
      rate: cfg.BENCH_STREAM_ORDERS_PER_SECOND,
      warmupS: cfg.BENCH_STREAM_WARMUP_S,
      drainS: cfg.BENCH_STREAM_DRAIN_S,
      log,
    },
  );
  log(
    `  p50 ${result.p50} ms, p99 ${result.p99} ms, max ${result.max} ms; ${Math.round(result.events / result.windowS)} events/s; ${Math.round(result.ordersPerSecond)} orders/s`,
  );
  return result;
}

/** Doubles from the main run while the target holds, or halves while it does not. */
async function search(
  first: RunResult,
  meets: (r: RunResult) => boolean,
  once: (clients: number) => Promise<RunResult>,
) {
  const steps: RunResult[] = [];
  if (cfg.BENCH_STREAM_MAX_CLIENTS === 0) return steps;
  if (meets(first))
    for (let n = N * 2; n <= cfg.BENCH_STREAM_MAX_CLIENTS; n *= 2) {
      steps.push(await once(n));
      if (!meets(steps.at(-1)!)) break;
    }
  else
    for (let n = Math.floor(N / 2); n >= cfg.BENCH_STREAM_MIN_CLIENTS; n = Math.floor(n / 2)) {
      steps.push(await once(n));
      if (meets(steps.at(-1)!)) break;
    }
  return steps;
}

/** The same flow through NATS and gateway processes: N clients dealt over them, then 1 (the hop's floor). */
async function gatewayPart(): Promise<{ runs: RunResult[]; note: string }> {
  const skip = await gatewaySkipReason(cfg);
  if (skip) return { runs: [], note: `gateway part skipped: ${skip}` };
  const { exchange, flow } = await exchangeWithFlow("exchange-nats", cfg.NATS_URL);
  const gateways: Service[] = [];
  for (let i = 1; i <= cfg.BENCH_STREAM_GATEWAYS; i++) {
    gateways.push(await startGatewayChild(tmp, `gateway-${i}`, cfg.NATS_URL, exchange.url));
    log(`gateway-${i}: ${gateways.at(-1)!.url} (pid ${gateways.at(-1)!.pid})`);
  }
  const urls = gateways.map((g) => g.url);
  const servers = [exchange, ...gateways];
  const g = cfg.BENCH_STREAM_GATEWAYS;
  // N first: the gateways' RSS growth is then that of fresh processes.
  const runs = [
    await run(`via ${g} gateways`, urls, N, cfg.BENCH_STREAM_DURATION_S, flow, gateways, servers),
    await run(`via ${g} gateways, 1 client`, urls, 1, cfg.BENCH_STREAM_STEP_DURATION_S, flow, gateways, servers),
  ];
  await stopService(exchange);
  for (const gateway of gateways) await stopService(gateway);
  return {
    runs,
    note:
      `gateways: ${g} processes (npm run gateway) fed by NATS at ${cfg.NATS_URL}, clients dealt round-robin; the exchange publishes every stream ` +
      "to NATS (subjects exchange.stream.*: anything else publishing there during the run would add events)",
  };
}

async function main() {
  log(
    `${N} clients on ${streams.join(" + ")}, ${cfg.BENCH_STREAM_ORDERS_PER_SECOND} orders/s, ${cfg.BENCH_STREAM_WARMUP_S}+${cfg.BENCH_STREAM_DURATION_S} s a run; ` +
      `${cfg.BENCH_STREAM_CLIENT_THREADS} client thread(s) (${cfg.BENCH_STREAM_CLIENT_IMPL}) on ${availableParallelism()} cores; seed ${cfg.BENCH_SEED}; temp dir ${tmp}`,
  );
  const { exchange, flow } = await exchangeWithFlow("exchange");
  const ws = `${exchange.url.replace(/^http/, "ws")}/ws`;
  const heap = async () => (await exchange.memory()).heapAndExternal;
  const direct = (name: string, clients: number, durationS: number) =>
    run(name, [ws], clients, durationS, flow, [exchange], [exchange], heap);
  // The main run first, so its memory growth is that of a process that has served no run yet.
  const mainRun = await direct("main", N, cfg.BENCH_STREAM_DURATION_S);
  const baseline = await direct("baseline: 1 client", 1, cfg.BENCH_STREAM_DURATION_S);
  const meets = (r: RunResult) => misses(r, TARGET, baseline.ordersPerSecond).length === 0;
  const steps = await search(mainRun, meets, (n) => direct(`search: ${n}`, n, cfg.BENCH_STREAM_STEP_DURATION_S));
  await stopService(exchange); // the gateway part gets the machine to itself

  let gateway: Awaited<ReturnType<typeof gatewayPart>>;
  try {
    gateway = await gatewayPart();
  } catch (error) {
    // The direct part stands on its own; the failure is reported and fails the run.
    process.exitCode = 1;
    gateway = { runs: [], note: `gateway part FAILED: ${(error as Error).stack ?? error}` };
    printLogTails();
  }
  printReport(cfg, { mainRun, baseline, steps, gateway });
  console.log(`total ${((performance.now() - began) / 1000).toFixed(0)} s`);
}

try {
  await main();
} catch (error) {
  console.error(`\nbenchmark failed: ${(error as Error).stack ?? error}`);
  printLogTails();
  process.exitCode = 1;
} finally {
  for (const flow of flows) flow.close();
  await pool.stop();
  await stopAll();
}
process.exit(process.exitCode ?? 0);
