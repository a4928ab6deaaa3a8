import { stripVTControlCharacters } from "node:util";
import { percentile } from "../indexer/stats.ts";
import { fixed, table } from "../indexer/table.ts";

/**
 * With WRITES_TRACE=1 the API prints one `writes-trace {json}` line per write (lib/stage-trace.ts)
 * and `writes-loop {json}` with its event loop's delay every 2 s. This turns Ponder's log into a
 * table per kind: each stage's duration (summed when a write has it more than once) and when it
 * starts, in ms from the request's arrival, over the writes that have it. Warm-ups are included.
 */

interface TraceLine {
  name: string;
  total: number;
  spans: [string, number, number][];
}

export function traceTables(log: string): string {
  const lines = stripVTControlCharacters(log).split("\n");
  const traces: TraceLine[] = [];
  const loops: { p50: number; p99: number; max: number; mean: number }[] = [];
  for (const line of lines) {
    const at = line.indexOf("writes-trace {");
    if (at >= 0) traces.push(JSON.parse(line.slice(at + "writes-trace ".length)));
    const loop = line.indexOf("writes-loop {");
    if (loop >= 0) loops.push(JSON.parse(line.slice(loop + "writes-loop ".length)));
  }
  const out: string[] = [];
  for (const kind of ["spawn", "vote"]) {
    const ofKind = traces.filter((t) => t.name.endsWith(kind));
    if (ofKind.length === 0) continue;
    const stages = new Map<string, { ms: number[]; start: number[] }>();
    const add = (name: string, ms: number, start: number) => {
      const stage = stages.get(name) ?? { ms: [], start: [] };
      stages.set(name, stage);
      stage.ms.push(ms);
      stage.start.push(start);
    };
    for (const trace of ofKind) {
      const sums = new Map<string, { ms: number; start: number }>();
      for (const [name, start, end] of trace.spans) {
        const sum = sums.get(name);
        if (sum) sum.ms += end - start;
        else sums.set(name, { ms: end - start, start });
      }
      for (const [name, { ms, start }] of sums) add(name, ms, start);
    }
    const byStart = [...stages].sort(([, a], [, b]) => percentile(a.start, 50) - percentile(b.start, 50));
    byStart.push(["total (server)", { ms: ofKind.map((t) => t.total), start: ofKind.map(() => 0) }]);
    const rows = byStart.map(([name, { ms, start }]) => [
      name,
      String(ms.length),
      fixed(percentile(start, 50)),
      fixed(percentile(ms, 50)),
      fixed(percentile(ms, 90)),
      fixed(ms.reduce((a, b) => a + b, 0) / ms.length),
    ]);
    out.push(
      `${kind}s, per stage (WRITES_TRACE)\n\n${table(["stage", "writes", "starts p50 ms", "p50 ms", "p90 ms", "mean ms"], rows)}`,
    );
  }
  if (loops.length > 0) {
    out.push(
      `API event loop delay over ${loops.length} 2-s windows: mean of means ${fixed(loops.reduce((a, l) => a + l.mean, 0) / loops.length)} ms, ` +
        `median p99 ${fixed(
          percentile(
            loops.map((l) => l.p99),
            50,
          ),
        )} ms, max ${fixed(Math.max(...loops.map((l) => l.max)))} ms`,
    );
  }
  return out.join("\n\n");
}
