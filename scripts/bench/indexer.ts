/**
 * `npm run bench:indexer`: indexing throughput of our Ponder app against a no-op Ponder app on
 * the same event stream, then list-endpoint latency at BENCH_LATENCY_ROWS action-log rows.
 * Everything runs on its own ports and in a temp dir; Ctrl-C stops all of it. Knobs: indexer/config.ts.
 * It is a report: the exit code is 0 whether or not the targets are met (non-zero on failure).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { blockNumber, deploy, manualMining, mineEmpty, startChain } from "./indexer/chain.ts";
import { readConfig } from "./indexer/config.ts";
import { freshDatabase } from "./indexer/databases.ts";
import { handledEvents } from "./indexer/events.ts";
import { measureAll } from "./indexer/latency.ts";
import { type AppOptions, stopApp, timeIndexing, total } from "./indexer/ponder.ts";
import { assertPortFree } from "./indexer/ports.ts";
import { listProbes } from "./indexer/probes.ts";
import { installSignalHandlers, isStopping, onCleanup, runTask, stopAll } from "./indexer/processes.ts";
import { printReport } from "./indexer/print.ts";
import type { Measured } from "./indexer/report.ts";
import { type Actors, blockGasLimit, generateStream, setupActors, type StreamSize } from "./indexer/stream.ts";
import { int } from "./indexer/table.ts";
import { appDir, noopDir } from "./indexer/workdir.ts";

// Ponder 0.17 treats the newest 30 blocks of a chain it has no figure for (any local one) as unfinalized.
const FINALITY_BLOCKS = 30;

const repo = fileURLToPath(new URL("../..", import.meta.url));
const cfg = readConfig();
const began = performance.now();
const log = (msg: string) =>
  console.log(`[bench ${((performance.now() - began) / 1000).toFixed(0).padStart(4)} s] ${msg}`);
const timeout = cfg.BENCH_TIMEOUT_S * 1000;

installSignalHandlers();
const tmp = mkdtempSync(join(tmpdir(), "bench-indexer-"));
const logs = join(tmp, "logs");
mkdirSync(logs);
let keepLogs = false;
onCleanup(() => {
  if (cfg.BENCH_KEEP_TMP) return console.log(`kept ${tmp}`);
  // After a failure the logs stay for the post-mortem; app data and copies go either way.
  if (!keepLogs || readdirSync(logs).length === 0) return rmSync(tmp, { recursive: true, force: true });
  for (const entry of readdirSync(tmp))
    if (entry !== "logs") rmSync(join(tmp, entry), { recursive: true, force: true });
});

/** Mines a stream, then enough empty blocks that all of it is finalized; returns its last block. */
async function mineStream(
  url: string,
  deployment: Parameters<typeof generateStream>[1],
  actors: Actors,
  size: StreamSize,
  offset: number,
) {
  const count = size.actions + size.transfers;
  let next = 0;
  const result = await generateStream(url, deployment, actors, size, {
    offset,
    recipientCount: cfg.BENCH_RECIPIENTS,
    onBlock: (done) => {
      if (done < next && done < count) return;
      log(`  mined ${int(done)} / ${int(count)} transactions`);
      next = done + Math.max(count / 4, 1);
    },
  });
  const lastBlock = await blockNumber(url);
  await mineEmpty(url, FINALITY_BLOCKS + 1);
  return { ...result, lastBlock };
}

async function appOptions(name: string, dir: string, port: number, env: NodeJS.ProcessEnv): Promise<AppOptions> {
  const DATABASE_URL = cfg.DATABASE_URL ? await freshDatabase(cfg.DATABASE_URL, `bench_${name}_${process.pid}`) : "";
  return { name, dir, port, logDir: logs, schema: "bench", env: { ...env, DATABASE_URL, PORT: String(port) } };
}

/**
 * Times an app from a fresh database (RPC fetch included), then, if BENCH_CACHED, again into a
 * new schema of the same database, where Ponder replays the events from its own RPC cache: the
 * re-index every deploy with a changed schema or handler does, bound by handlers, not the node.
 */
async function timeApp(opts: AppOptions, lastBlock: number): Promise<Measured> {
  log(`indexing with ${opts.name.startsWith("app") ? "our app" : "the no-op app"}...`);
  const cold = await timeIndexing(repo, opts, lastBlock, timeout);
  await stopApp(cold.app);
  log(`  ${int(total(cold.run.events))} events in ${cold.run.indexingS.toFixed(1)} s`);
  if (!cfg.BENCH_CACHED) return { cold: cold.run };
  const cached = await timeIndexing(
    repo,
    { ...opts, name: `${opts.name}-cached`, schema: "bench_cached" },
    lastBlock,
    timeout,
  );
  await stopApp(cached.app);
  log(`  again from Ponder's RPC cache: ${cached.run.indexingS.toFixed(1)} s`);
  return { cold: cold.run, cached: cached.run };
}

async function main() {
  await assertPortFree(cfg.BENCH_CHAIN_PORT, "BENCH_CHAIN_PORT");
  await assertPortFree(cfg.BENCH_APP_PORT, "BENCH_APP_PORT");
  await assertPortFree(cfg.BENCH_NOOP_PORT, "BENCH_NOOP_PORT");
  log(
    `temp dir ${tmp}; database ${cfg.DATABASE_URL ? "Postgres (a fresh database per app)" : "PGlite (a fresh directory per app)"}`,
  );
  await runTask("build", join(repo, "node_modules/.bin/hardhat"), ["build", "--quiet"], {
    cwd: repo,
    logPath: join(logs, "build.log"),
  });
  const { url } = await startChain(repo, cfg.BENCH_CHAIN_PORT, cfg.BENCH_CHAIN_ID, logs);
  const deployment = await deploy(url, tmp);
  const deploymentFile = join(tmp, "deployments", `${cfg.BENCH_CHAIN_ID}.json`);
  await manualMining(url, blockGasLimit(cfg.BENCH_TXS_PER_BLOCK));
  const actors = await setupActors(url, deployment, cfg.BENCH_TOKENS);

  const size = { actions: cfg.BENCH_ACTIONS, transfers: cfg.BENCH_TRANSFERS, txsPerBlock: cfg.BENCH_TXS_PER_BLOCK };
  log(
    `mining the throughput stream: ${int(size.actions)} actions + ${int(size.transfers)} transfers, ${size.txsPerBlock} txs a block`,
  );
  const stream = await mineStream(url, deployment, actors, size, 0);
  log(`  ${stream.blocks} blocks through block ${stream.lastBlock}`);

  const events = handledEvents(repo);
  // Polling matters only live, after the measured range (which is backfilled).
  const env = {
    RPC_URL: url,
    CHAIN_ID: String(cfg.BENCH_CHAIN_ID),
    POLLING_INTERVAL_MS: "1000",
    RATE_LIMIT_PER_MINUTE: "1000000000",
  };
  const noopEnv = { ...env, BENCH_EVENT_NAMES: events.join(",") };
  const rounds: { ours: Measured; noop: Measured }[] = [];
  let appOpts: AppOptions | undefined;
  for (let round = 1; round <= cfg.BENCH_ROUNDS; round++) {
    const suffix = round === 1 ? "" : `_r${round}`;
    if (cfg.BENCH_ROUNDS > 1) log(`round ${round} of ${cfg.BENCH_ROUNDS}`);
    // Ours first: anything the chain node caches from the first pass favours the baseline.
    const ours = await appOptions(
      `app${suffix}`,
      appDir(repo, join(tmp, `app${suffix}`), deploymentFile),
      cfg.BENCH_APP_PORT,
      env,
    );
    appOpts ??= ours;
    const noop = await appOptions(
      `noop${suffix}`,
      noopDir(repo, join(tmp, `noop${suffix}`), deploymentFile),
      cfg.BENCH_NOOP_PORT,
      noopEnv,
    );
    rounds.push({ ours: await timeApp(ours, stream.lastBlock), noop: await timeApp(noop, stream.lastBlock) });
  }

  // Top up the action log to the latency table's size with nothing else running, then let our
  // app resume from its checkpoint (a backfill: live indexing of 500-tx blocks while they are
  // mined starves the node on 2 cores and takes longer).
  const extra = Math.max(0, cfg.BENCH_LATENCY_ROWS - cfg.BENCH_ACTIONS);
  let lastBlock = stream.lastBlock;
  if (extra > 0) {
    log(`mining ${int(extra)} more actions for the latency table...`);
    const topUp = { actions: extra, transfers: 0, txsPerBlock: size.txsPerBlock };
    lastBlock = (await mineStream(url, deployment, actors, topUp, size.actions)).lastBlock;
  }
  log("our app catches up for the latency runs...");
  const served = await timeIndexing(repo, { ...appOpts!, name: "app-latency" }, lastBlock, timeout);
  const rows = cfg.BENCH_ACTIONS + extra;
  const probes = listProbes({
    rows,
    tokens: actors.tokens.length,
    tokenNftId: actors.tokens[0].nftId,
    pageSize: cfg.BENCH_PAGE_SIZE,
    deepPage: cfg.BENCH_DEEP_PAGE,
  });
  log(
    `measuring ${probes.length} endpoints, taking turns: ${cfg.BENCH_WARMUP} warm-up + ${cfg.BENCH_SAMPLES} requests each...`,
  );
  const results = await measureAll(served.app.url, probes, cfg.BENCH_SAMPLES, cfg.BENCH_WARMUP);
  await stopApp(served.app);

  printReport(cfg, { blocks: stream.blocks, size, rows, rounds, topUp: served.run, results, events: events.length });
}

let exitCode = 0;
try {
  await main();
} catch (error) {
  // After Ctrl-C the children die under main(); the signal handler reports and exits.
  if (!isStopping()) {
    console.error(`\nbenchmark failed: ${(error as Error).message}\nlogs kept in ${logs}`);
    keepLogs = true;
    exitCode = 1;
  }
}
await stopAll();
process.exit(exitCode);
