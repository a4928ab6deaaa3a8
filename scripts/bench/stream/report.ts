import { availableParallelism } from "node:os";
import type { StreamBenchConfig } from "./config.ts";
import type { RunResult } from "./measure.ts";

export interface Gateway {
  readonly runs: RunResult[];
  /** How the gateways ran, or why they did not. */
  readonly note: string;
}

// The final report's tables. Latencies are commit-to-delivery: the event's E (set when the
// committed batch is published) to Date.now() when a client reads it, on the same clock.

const int = (n: number) => Math.round(n).toLocaleString("en-US");
const ms = (n: number) => (Number.isNaN(n) ? "-" : int(n));
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const verdict = (ok: boolean) => (ok ? "MET" : "MISSED");
const cores = (n: number) => n.toFixed(2);

/** Left-aligned first column, right-aligned others. */
function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("   "))
    .join("\n");
}

/** Share of the baseline's order rate a run must keep: streams that throttle trading do not pass. */
const ORDER_RATE_KEPT = 0.9;

/**
 * Why a run misses the target (empty: it meets it): p99 over, an event lost or still undelivered,
 * a client closed by the server, or the order intake slowed below 90% of the baseline's.
 */
export function misses(r: RunResult, targetMs: number, baselineOrders: number): string[] {
  const why: string[] = [];
  if (r.events === 0) why.push("no events");
  if (!(r.p99 <= targetMs)) why.push(`p99 > ${targetMs} ms`);
  if (!r.drained) why.push("still arriving after the drain");
  else if (r.perClientMin !== r.perClientMax) why.push("events lost");
  if (Object.keys(r.closedBy).length > 0) why.push("clients closed");
  if (r.ordersPerSecond < ORDER_RATE_KEPT * baselineOrders)
    why.push(`orders/s slowed to ${int(r.ordersPerSecond)} of ${int(baselineOrders)}`);
  return why;
}

function latencyTable(runs: readonly RunResult[], baseline: RunResult, targetMs: number): string {
  const signed = (n: number) => `${n >= 0 ? "+" : ""}${ms(n)}`;
  return table([
    ["run", "clients", "p50 ms", "p99 ms", "max ms", "p50 - base", "p99 - base", `p99 <= ${targetMs} ms`],
    ...runs.map((r) => {
      const why = misses(r, targetMs, baseline.ordersPerSecond);
      return [
        r.name,
        int(r.clients),
        ms(r.p50),
        ms(r.p99),
        ms(r.max),
        r === baseline ? "(baseline)" : signed(r.p50 - baseline.p50),
        r === baseline ? "(baseline)" : signed(r.p99 - baseline.p99),
        why.length === 0 ? "MET" : `MISSED (${why.join(", ")})`,
      ];
    }),
  ]);
}

function loadTable(runs: readonly RunResult[]): string {
  const closed = (r: RunResult) =>
    Object.entries(r.closedBy)
      .map(([code, n]) => `${n} x ${code}`)
      .join(", ") || "0";
  return table([
    [
      "run",
      "events/s",
      "per client/s",
      "missing/client",
      "drained",
      "closed",
      "orders/s",
      "server cores",
      "bench cores",
      "other cores",
      "client thread busy",
    ],
    ...runs.map((r) => [
      r.name,
      int(r.events / r.windowS),
      int(r.perClientMax / r.windowS),
      int(r.perClientMax - r.perClientMin),
      r.drained ? "yes" : "no",
      closed(r),
      int(r.ordersPerSecond),
      cores(r.serverCores),
      cores(r.benchCores),
      cores(Math.max(0, r.otherCores)),
      `${(r.clientBusy * 100).toFixed(0)}%`,
    ]),
  ]);
}

/** Memory of the connection-holding processes at rest, before and after the clients subscribed. */
function memoryTable(runs: readonly RunResult[]): string {
  return table([
    ["run", "clients", "RSS before", "RSS after", "RSS / conn", "heap+external / conn", "RSS peak in flow"],
    ...runs.map((r) => [
      r.name,
      int(r.clients),
      mib(r.rssBefore),
      mib(r.rssAfter),
      kib((r.rssAfter - r.rssBefore) / r.clients),
      r.heapAfter === undefined ? "-" : kib((r.heapAfter - r.heapBefore!) / r.clients),
      mib(r.rssPeak),
    ]),
  ]);
}

function targetsTable(rows: [string, string, string][]): string {
  return table([["target", "measured", "result"], ...rows]);
}

/** The report: runs, load, memory, the targets and what to keep in mind reading them. */
export function printReport(
  cfg: StreamBenchConfig,
  {
    mainRun,
    baseline,
    steps,
    gateway,
  }: { mainRun: RunResult; baseline: RunResult; steps: RunResult[]; gateway: Gateway },
) {
  const [N, TARGET] = [cfg.BENCH_STREAM_CLIENTS, cfg.BENCH_STREAM_TARGET_P99_MS];
  const streams = [`${cfg.BENCH_STREAM_PAIR}@trade`, `${cfg.BENCH_STREAM_PAIR}@depth`];
  const backend = cfg.DATABASE_URL ? "PostgreSQL" : "PGlite";
  const runs = [baseline, mainRun, ...steps, ...gateway.runs];
  const meets = (r: RunResult) => misses(r, TARGET, baseline.ordersPerSecond).length === 0;
  // The p99, and whatever else kept the run from meeting the target.
  const measured = (r: RunResult) =>
    [`p99 ${r.p99} ms`, ...misses(r, TARGET, baseline.ordersPerSecond).filter((w) => !w.startsWith("p99"))].join("; ");
  const met = [mainRun, ...steps].filter(meets);
  const largest = met.length ? Math.max(...met.map((r) => r.clients)) : undefined;
  const viaGateways = gateway.runs.find((r) => r.clients === N);
  const perConnection = (r: RunResult) =>
    `RSS ${kib((r.rssAfter - r.rssBefore) / r.clients)}` +
    (r.heapAfter === undefined ? "" : `, heap+external ${kib((r.heapAfter - r.heapBefore!) / r.clients)}`);
  const offered = cfg.BENCH_STREAM_ORDERS_PER_SECOND;
  console.log(
    `\nstreams ${streams.join(" + ")} on ${backend}; ${offered} signed orders/s offered (half of them trade); ` +
      `latency = client receive time - event E (set when the committed batch is published), one clock; ` +
      `${cfg.BENCH_STREAM_CLIENT_THREADS} client thread(s) (${cfg.BENCH_STREAM_CLIENT_IMPL}), ${availableParallelism()} cores\n`,
  );
  console.log(`Latency (base = "${baseline.name}", the floor)\n\n${latencyTable(runs, baseline, TARGET)}\n`);
  console.log(`Delivery and load during the measured window\n\n${loadTable(runs)}\n`);
  console.log(
    `Memory per connection (processes holding the connections, at rest, before any run)\n\n${memoryTable([mainRun, ...gateway.runs.filter((r) => r.clients === N)])}\n`,
  );
  const rows: [string, string, string][] = [
    [`p99 <= ${TARGET} ms at ${N.toLocaleString("en-US")} clients`, measured(mainRun), verdict(meets(mainRun))],
    [
      `largest client count with p99 <= ${TARGET} ms`,
      largest === undefined
        ? `none of ${[mainRun, ...steps].map((r) => r.clients).join(", ")}`
        : largest.toLocaleString("en-US"),
      cfg.BENCH_STREAM_MAX_CLIENTS === 0 ? "(search off)" : "(report)",
    ],
  ];
  if (viaGateways)
    rows.push([
      `p99 <= ${TARGET} ms at ${N.toLocaleString("en-US")} clients via ${cfg.BENCH_STREAM_GATEWAYS} gateways`,
      measured(viaGateways),
      verdict(meets(viaGateways)),
    ]);
  rows.push(["memory per connection, exchange", perConnection(mainRun), "(report)"]);
  if (viaGateways) rows.push(["memory per connection, gateways", perConnection(viaGateways), "(report)"]);
  rows.push([`baseline (${baseline.name}) p50 / p99`, `${baseline.p50} / ${baseline.p99} ms`, "(floor)"]);
  console.log(`Targets\n\n${targetsTable(rows)}\n`);

  const notes = [
    gateway.note,
    `a run meets the target when its p99 is within ${TARGET} ms, every client got every event of the window (none closed, none lost, ` +
      `all arrived within ${cfg.BENCH_STREAM_DRAIN_S} s of the flow's end) and the exchange still took >= ${ORDER_RATE_KEPT * 100}% of the baseline's orders/s`,
    `search steps measure ${cfg.BENCH_STREAM_STEP_DURATION_S} s each, the other runs ${cfg.BENCH_STREAM_DURATION_S} s (the gateways' 1-client run ${cfg.BENCH_STREAM_STEP_DURATION_S} s)`,
  ];
  if (baseline.ordersPerSecond < 0.9 * offered)
    notes.push(
      `the exchange took ${Math.round(baseline.ordersPerSecond)} of the ${offered} orders/s offered even with 1 client: ` +
        (cfg.DATABASE_URL
          ? "the full path is the limit here"
          : "PGlite's full path is ~300 orders/s (README); DATABASE_URL gives the target rate"),
    );
  const undrained = runs.filter((r) => !r.drained).map((r) => `"${r.name}"`);
  if (undrained.length)
    notes.push(
      `${undrained.join(", ")}: events of the window still arriving ${cfg.BENCH_STREAM_DRAIN_S} s after the flow stopped; ` +
        "their latencies are lower bounds (the slowest were never counted) and missing/client is how far behind a client was",
    );
  if (runs.some((r) => r.clientBusy > 0.9))
    notes.push(
      "a client thread was over 90% busy: its latencies include time waiting to be read, and the clients share the machine's cores with the servers",
    );
  const others = Math.max(...runs.map((r) => r.otherCores));
  if (others > 0.25)
    notes.push(`other processes (the database, other work) used up to ${others.toFixed(2)} cores during a window`);
  console.log(`Notes\n\n${notes.map((n) => `- ${n}`).join("\n")}\n`);
}
