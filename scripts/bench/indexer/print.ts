import { cpus, loadavg } from "node:os";
import type { BenchConfig } from "./config.ts";
import type { ProbeResult } from "./latency.ts";
import { type IndexingRun, total } from "./ponder.ts";
import { latencySection, type Measured, throughputSection, verdictSection, workSection } from "./report.ts";
import type { StreamSize } from "./stream.ts";
import { fixed, int } from "./table.ts";

export interface RunSummary {
  blocks: number;
  size: StreamSize;
  rows: number;
  rounds: { ours: Measured; noop: Measured }[];
  topUp: IndexingRun;
  results: ProbeResult[];
  events: number;
}

const fastest = (runs: (IndexingRun | undefined)[]) =>
  runs.filter((run) => run !== undefined).sort((a, b) => a.indexingS - b.indexingS)[0];

/** The fastest run of each app and mode: under outside load, the least disturbed one. */
function best(rounds: RunSummary["rounds"], app: "ours" | "noop"): Measured {
  return { cold: fastest(rounds.map((r) => r[app].cold))!, cached: fastest(rounds.map((r) => r[app].cached)) };
}

function roundsNote(rounds: RunSummary["rounds"]): string {
  if (rounds.length < 2) return "";
  const list = (app: "ours" | "noop", mode: "cold" | "cached") =>
    rounds.map((r) => r[app][mode]?.indexingS.toFixed(1) ?? "-").join(", ");
  return (
    `\nBest of ${rounds.length} rounds; indexing s per round: ours fresh ${list("ours", "cold")}, cached ${list("ours", "cached")}; ` +
    `no-op fresh ${list("noop", "cold")}, cached ${list("noop", "cached")}`
  );
}

export function printReport(cfg: BenchConfig, r: RunSummary) {
  const ours = best(r.rounds, "ours");
  const noop = best(r.rounds, "noop");
  const throughput = throughputSection(noop, ours);
  const latency = latencySection(r.results);
  const same = total(ours.cold.events) === total(noop.cold.events);
  const first = r.results[0];
  const apiRows = first?.ok ? first.totalItems : undefined;
  const rowsNote =
    apiRows === undefined || apiRows === r.rows ? "" : `  !!! the API reports ${apiRows} rows, expected ${r.rows} !!!`;
  const work = [workSection(ours.cold, "fresh DB"), ours.cached ? workSection(ours.cached, "from RPC cache") : ""];
  // Load from other processes skews every number here; the reader should know how busy it was.
  const load = loadavg()
    .map((l) => fixed(l, 1))
    .join(" ");
  console.log(`
=== Indexer benchmark: Ponder 0.17.7 on ${cfg.DATABASE_URL ? "Postgres" : "PGlite"}, ${cpus().length} CPUs (load average now ${load}), Node ${process.versions.node} ===
Throughput stream: ${int(r.size.actions)} actions + ${int(r.size.transfers)} transfers (+ set-up: ${cfg.BENCH_TOKENS} spawns, 3 agents, holder funding) in ${r.blocks} blocks of <= ${r.size.txsPerBlock} txs
Both apps subscribe to the same ${r.events} events; indexed events equal: ${same ? "yes" : `NO (ours ${total(ours.cold.events)}, no-op ${total(noop.cold.events)})`}

${throughput.text}${roundsNote(r.rounds)}

${work.filter(Boolean).join("\n\n")}

API latency at ${int(r.rows)} action-log rows (API totalItems: ${apiRows ?? "n/a"})${rowsNote}
${cfg.BENCH_SAMPLES} sequential requests per endpoint (endpoints taking turns) after ${cfg.BENCH_WARMUP} warm-up rounds, pageSize ${cfg.BENCH_PAGE_SIZE}; our app had resumed and indexed ${int(total(r.topUp.events))} more events in ${fixed(r.topUp.indexingS)} s

${latency.text}

${verdictSection([...throughput.verdicts, ...latency.verdicts])}
`);
}
