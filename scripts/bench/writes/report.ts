import { percentile } from "../indexer/stats.ts";
import { fixed, ratio, table } from "../indexer/table.ts";
import type { Kind, PathName } from "./fixtures.ts";
import type { RoundResult, Visibility } from "./measure.ts";

/** The printed tables: per round and per path, throughput against the direct path of the same run. */

export const TARGET = 0.8;

export interface MeasuredRound extends RoundResult {
  readonly path: PathName;
  readonly round: number;
}

interface PathTotals {
  readonly ok: number;
  readonly failed: number;
  readonly wallMs: number;
  readonly perSecond: number;
  readonly answerMs: number[];
  readonly visibleMs: number[];
}

function totals(rounds: readonly MeasuredRound[], visibility: Visibility): PathTotals {
  const samples = rounds.flatMap((r) => r.samples);
  const ok = samples.filter((s) => s.key !== undefined);
  const wallMs = rounds.reduce((sum, r) => sum + r.wallMs, 0);
  return {
    ok: ok.length,
    failed: samples.length - ok.length,
    wallMs,
    perSecond: ok.length / (wallMs / 1000),
    answerMs: ok.map((s) => s.answeredAt - s.startedAt),
    visibleMs: ok.map((s) => visibility.firstSeen(s.key!)! - s.startedAt),
  };
}

const ms = (samples: number[], p: number) => (samples.length === 0 ? "-" : fixed(percentile(samples, p), 0));

export interface KindReport {
  readonly kind: Kind;
  /** Writes in flight. */
  readonly level: number;
  readonly direct: PathTotals;
  readonly api: PathTotals;
  readonly ratio: number;
  readonly text: string;
}

export function kindReport(
  kind: Kind,
  level: number,
  rounds: readonly MeasuredRound[],
  visibility: Visibility,
): KindReport {
  const header = [
    `${kind}s, ${level} in flight`,
    "writes",
    "failed",
    "wall s",
    "writes/s",
    "x direct",
    "answer p50 ms",
    "answer p99 ms",
    "visible p50 ms",
    "visible p99 ms",
  ];
  const row = (label: string, t: PathTotals, base: PathTotals | undefined) => [
    label,
    String(t.ok),
    String(t.failed),
    fixed(t.wallMs / 1000, 2),
    fixed(t.perSecond, 2),
    base ? ratio(t.perSecond / base.perSecond) : "",
    ms(t.answerMs, 50),
    ms(t.answerMs, 99),
    ms(t.visibleMs, 50),
    ms(t.visibleMs, 99),
  ];
  const rows: string[][] = [];
  const roundNumbers = [...new Set(rounds.map((r) => r.round))];
  for (const n of roundNumbers) {
    const of = (path: PathName) =>
      totals(
        rounds.filter((r) => r.round === n && r.path === path),
        visibility,
      );
    const direct = of("direct");
    rows.push(row(`direct, round ${n}`, direct, undefined), row(`api, round ${n}`, of("api"), direct));
  }
  const direct = totals(
    rounds.filter((r) => r.path === "direct"),
    visibility,
  );
  const api = totals(
    rounds.filter((r) => r.path === "api"),
    visibility,
  );
  rows.push(row("direct, all rounds", direct, undefined), row("api, all rounds", api, direct));
  return { kind, level, direct, api, ratio: api.perSecond / direct.perSecond, text: table(header, rows) };
}

/**
 * Per kind, each path's throughput is the best writes/s it reached at any level, and the target
 * compares those; the ratio at each level is printed beside it. A failed write misses the target.
 */
export function targetsTable(reports: readonly KindReport[]): string {
  const rows: string[][] = [];
  for (const kind of [...new Set(reports.map((r) => r.kind))]) {
    const of = reports.filter((r) => r.kind === kind);
    const best = (path: "api" | "direct") => of.reduce((a, b) => (b[path].perSecond > a[path].perSecond ? b : a));
    const api = best("api");
    const direct = best("direct");
    const measured = api.api.perSecond / direct.direct.perSecond;
    const failed = of.some((r) => r.api.failed > 0);
    rows.push([
      `${kind}s/s: api >= ${TARGET}x direct (best of each)`,
      `${ratio(measured)}: ${fixed(api.api.perSecond, 1)}/s (${api.level} in flight) / ${fixed(direct.direct.perSecond, 1)}/s (${direct.level} in flight)`,
      measured >= TARGET && !failed ? "MET" : "MISSED",
    ]);
    for (const r of of) rows.push([`  at ${r.level} in flight`, ratio(r.ratio), ""]);
  }
  return table(["target", "measured", "result"], rows);
}
