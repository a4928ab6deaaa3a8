import { setTimeout as sleep } from "node:timers/promises";
import type { ClientPool } from "./clients.ts";
import type { OrderFlow } from "./orders.ts";
import { cpuSeconds, machineBusySeconds, rssBytes } from "../proc.ts";

/**
 * One measured run: N clients connect and subscribe (memory sampled before and after, at rest),
 * orders flow at the target rate, and every event whose E falls in the measured window is timed
 * on arrival; after the flow stops, events still on their way are waited for (drain).
 */

export interface RunSpec {
  readonly name: string;
  /** One WebSocket URL per client (several gateways: the clients are dealt over them). */
  readonly targets: string[];
  readonly durationS: number;
  /** Processes holding the connections: their RSS growth is the memory per connection. */
  readonly holders: readonly number[];
  /** Every server process, for CPU. */
  readonly servers: readonly number[];
  /** The exchange's heap and external memory after a full GC, when it holds the connections. */
  readonly heap?: () => Promise<number>;
}

export interface RunResult {
  readonly name: string;
  readonly clients: number;
  readonly windowS: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly events: number;
  readonly perClientMin: number;
  readonly perClientMax: number;
  readonly closedBy: Record<number, number>;
  /** Busiest client thread's event-loop utilisation during the window. */
  readonly clientBusy: number;
  readonly ordersPerSecond: number;
  /** Server CPU during the window, in cores (1 = one core busy all the time). */
  readonly serverCores: number;
  /** This process (order sender and client threads), in cores. */
  readonly benchCores: number;
  /** Everything else on the machine (the database server, other work), in cores. */
  readonly otherCores: number;
  readonly connectS: number;
  readonly rssBefore: number;
  readonly rssAfter: number;
  readonly rssPeak: number;
  /** Heap in use plus external memory after a full GC (the exchange only). */
  readonly heapBefore?: number;
  readonly heapAfter?: number;
  /** Whether events had stopped arriving, every client with as many as the others, within the drain time. */
  readonly drained: boolean;
}

const sum = (pids: readonly number[], f: (pid: number) => number) => pids.reduce((n, pid) => n + f(pid), 0);

export async function measureRun(
  spec: RunSpec,
  pool: ClientPool,
  flow: OrderFlow,
  opts: { streams: string[]; batch: number; rate: number; warmupS: number; drainS: number; log: (m: string) => void },
): Promise<RunResult> {
  const n = spec.targets.length;
  await sleep(1_000);
  const heapBefore = await spec.heap?.();
  const rssBefore = sum(spec.holders, rssBytes);
  const connectBegan = performance.now();
  await pool.connect(spec.targets, opts.streams, opts.batch);
  const connectS = (performance.now() - connectBegan) / 1000;
  await sleep(1_000); // connections at rest before the memory sample
  const heapAfter = await spec.heap?.();
  const rssAfter = sum(spec.holders, rssBytes);
  opts.log(
    `  ${n} clients subscribed in ${connectS.toFixed(1)} s; flow at ${opts.rate}/s for ${opts.warmupS}+${spec.durationS} s`,
  );

  flow.start(opts.rate);
  // The window is fixed before it opens: every thread then counts the same events (a bound sent
  // while events arrive would let a thread count one its peers do not).
  const from = Date.now() + Math.max(250, opts.warmupS * 1000);
  const to = from + spec.durationS * 1000;
  await pool.window(from, to);
  const cpu = () => ({ server: sum(spec.servers, cpuSeconds), bench: process.cpuUsage(), all: machineBusySeconds() });
  await sleep(from - Date.now());
  const [ok0, cpu0, t0] = [flow.ok, cpu(), performance.now()];
  let rssPeak = rssAfter;
  const peak = setInterval(() => (rssPeak = Math.max(rssPeak, sum(spec.holders, rssBytes))), 500);
  await sleep(to - Date.now());
  clearInterval(peak);
  const [ok1, cpu1, t1] = [flow.ok, cpu(), performance.now()];
  await flow.stop();

  // Drained once nothing has arrived for half a second and every client has as many events as
  // the others (one server may stall while another is done); what is still missing is lost.
  const drainUntil = Date.now() + opts.drainS * 1000;
  let stats = await pool.stats();
  const settled = () => Date.now() - stats.lastAt >= 500 && stats.perClientMin === stats.perClientMax;
  while (!settled() && Date.now() < drainUntil) {
    await sleep(100);
    stats = await pool.stats();
  }
  const drained = settled();
  await pool.closeAll();
  // Closes the server made are counted even when read only while closing (behind a backlog).
  const { closedBy } = await pool.stats();
  const windowS = (to - from) / 1000;
  const cores = (seconds: number) => (seconds * 1000) / (t1 - t0);
  const serverCores = cores(cpu1.server - cpu0.server);
  const benchCores = cores((cpu1.bench.user + cpu1.bench.system - cpu0.bench.user - cpu0.bench.system) / 1e6);
  return {
    name: spec.name,
    clients: n,
    windowS,
    p50: stats.histogram.percentile(50),
    p99: stats.histogram.percentile(99),
    max: stats.histogram.max,
    events: stats.events,
    perClientMin: stats.perClientMin,
    perClientMax: stats.perClientMax,
    closedBy,
    clientBusy: stats.busy,
    ordersPerSecond: ((ok1 - ok0) * 1000) / (t1 - t0),
    serverCores,
    benchCores,
    otherCores: cores(cpu1.all - cpu0.all) - serverCores - benchCores,
    connectS,
    rssBefore,
    rssAfter,
    rssPeak,
    heapBefore,
    heapAfter,
    drained,
  };
}
