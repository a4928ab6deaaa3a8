import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { indexedBlock } from "../../../lib/ponder-status.ts";
import { startProcess, type Started, stopProcess, unlessExited } from "./processes.ts";
import { setTimeout as sleep } from "node:timers/promises";
import { waitFor } from "../../../support/wait.ts";

export interface PonderApp {
  name: string;
  url: string;
  process: Started;
  startedAt: number;
}

export interface AppOptions {
  name: string;
  dir: string;
  port: number;
  logDir: string;
  env: NodeJS.ProcessEnv;
  /** Database schema of the app's tables (Ponder 0.17 requires one, PGlite included). */
  schema: string;
}

/** Starts `ponder start` in `dir` (its own deployments/ and .data/), timed from the spawn. */
export function startApp(repo: string, options: AppOptions): PonderApp {
  const args = ["--root", options.dir, "start", "--port", String(options.port), "--schema", options.schema];
  const startedAt = performance.now();
  const process = startProcess(options.name, join(repo, "node_modules/.bin/ponder"), args, {
    cwd: options.dir,
    env: options.env,
    logPath: join(options.logDir, `${options.name}.log`),
  });
  return { name: options.name, url: `http://127.0.0.1:${options.port}`, process, startedAt };
}

/**
 * Waits until the app has indexed through `block` and returns the seconds since it was spawned.
 * The caller passes the last block with events and has mined 30+ empty blocks after it, so that
 * block is finalized and reached at the end of the backfill, not after the realtime tail of empty
 * blocks. /status moves per indexed range; polling every 50 ms bounds the timing error.
 */
export async function waitCaughtUp(app: PonderApp, block: number, timeoutMs: number): Promise<number> {
  await unlessExited(
    app.process,
    waitFor(`${app.name} to index through block ${block}`, async () => (await indexedBlock(app.url)) >= block, {
      timeoutMs,
      intervalMs: 50,
    }),
  );
  return (performance.now() - app.startedAt) / 1000;
}

/** Seconds from spawn until the HTTP server answers: build, database set-up, migrations. */
export async function waitHealthy(app: PonderApp, timeoutMs: number): Promise<number> {
  await unlessExited(
    app.process,
    waitFor(`${app.name} to answer /health`, async () => (await fetch(`${app.url}/health`)).ok, {
      timeoutMs,
      intervalMs: 50,
    }),
  );
  return (performance.now() - app.startedAt) / 1000;
}

/** Ponder's Prometheus metrics, also saved beside the app's log for a closer look. */
export async function scrapeMetrics(app: PonderApp): Promise<string> {
  // Some gauges are flushed on scrape; a second scrape right after reads the settled values.
  await fetch(`${app.url}/metrics`);
  await sleep(200);
  const text = await (await fetch(`${app.url}/metrics`)).text();
  writeFileSync(app.process.logPath.replace(/\.log$/, ".metrics.txt"), text);
  return text;
}

/** Sum of `metric` per value of `label` (e.g. completed events per event name). */
export function sumBy(metricsText: string, metric: string, label: string): Map<string, number> {
  const pattern = new RegExp(`^${metric}\\{([^}]*)\\}\\s+(\\S+)$`);
  const sums = new Map<string, number>();
  for (const line of metricsText.split("\n")) {
    const match = pattern.exec(line);
    const key = match && new RegExp(`${label}="([^"]*)"`).exec(match[1])?.[1];
    if (match && key !== undefined && key !== null) sums.set(key, (sums.get(key) ?? 0) + Number(match[2]));
  }
  return sums;
}

export interface IndexingRun {
  /** Spawn to /health: build, database set-up, migrations (the same fixed cost for any app). */
  startupS: number;
  /** /health (backfill starts right after the server) to indexed through the last event. */
  indexingS: number;
  events: Map<string, number>;
  metrics: string;
}

/** Starts an app and times it through `lastBlock`; the app keeps running (stop it with stopApp). */
export async function timeIndexing(repo: string, options: AppOptions, lastBlock: number, timeoutMs: number) {
  const app = startApp(repo, options);
  const startupS = await waitHealthy(app, timeoutMs);
  const caughtUpS = await waitCaughtUp(app, lastBlock, timeoutMs);
  const metrics = await scrapeMetrics(app);
  const events = sumBy(metrics, "ponder_indexing_completed_events", "event");
  const run: IndexingRun = { startupS, indexingS: caughtUpS - startupS, events, metrics };
  return { app, run };
}

export const total = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);

export async function stopApp(app: PonderApp) {
  await stopProcess(app.process);
}
