/**
 * `npm run bench:writes`: the ecosystem API's two relayed writes (POST /api/launchpad/spawn and
 * POST /api/agents/workers/:tokenId/vote) against the same transactions sent directly by viem
 * with the relayer's key (the baseline), in the same run, with the same concurrency:
 *
 * 1. A Hardhat node, the ecosystem deployed and seeded, the exchange (a process of its own, as npm
 *    start runs it) and Ponder (the read API and its relayer) on PGlite, all on free ports in a
 *    temp dir (writes/services.ts).
 * 2. At each concurrency level (8, then 32 writes in flight), spawns, then votes: rounds alternate
 *    direct, api, direct, api, each after one untimed warm-up write and once the round before is
 *    indexed. Every spawn has its own owner and symbol; every vote its own voter (given 10 ALPHA
 *    before the proposal) on one open proposal.
 * 3. Per path and level: writes/s (first request to last answer), p50/p99 from request to answer
 *    and from request to visible in the read API (/api/launchpad/tokens, /api/agents/proposals/:id).
 *
 * Target: the API path's best writes/s >= 0.8x the direct path's best. Knobs: writes/config.ts. It is a
 * report: the exit code is 0 whether or not the target is met, non-zero only if the run fails.
 * Every process it started and the temp dir are removed on success, failure and Ctrl-C.
 */
import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { printLogs, stopAll, waitIndexed } from "../../support/ecosystem/harness.ts";
import { readConfig } from "./writes/config.ts";
import {
  addressOf,
  createUsers,
  giveAlpha,
  type Job,
  type Kind,
  openProposal,
  type PathName,
  planJobs,
} from "./writes/fixtures.ts";
import { runRound, Visibility } from "./writes/measure.ts";
import { apiWriters, directWriters, type Writer } from "./writes/paths.ts";
import { kindReport, type MeasuredRound, TARGET, targetsTable } from "./writes/report.ts";
import { type Counts, delta, rpcTable, sum } from "./writes/rpc-count.ts";
import { traceTables } from "./writes/trace.ts";
import { addCpu, cpuTable, snapshotCpu } from "./writes/cpu.ts";
import { type StartedSoFar, type Services, startServices, stopServices, writesReady } from "./writes/services.ts";

const cfg = readConfig();
const began = performance.now();
const log = (msg: string) =>
  console.log(`[bench ${((performance.now() - began) / 1000).toFixed(0).padStart(4)} s] ${msg}`);

const tmp = await mkdtemp(join(tmpdir(), "bench-writes-"));
// Ctrl-C: the harness SIGKILLs the chain and Ponder and exits; the temp dir goes here.
process.once("exit", () => {
  if (!cfg.BENCH_KEEP_TMP) rmSync(tmp, { recursive: true, force: true });
});
const started: StartedSoFar = {};
const notes: string[] = [];

/** The untimed write before a round; the API's may be refused once (see the note it leaves). */
async function warmUp(job: Job, write: Writer): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await write(job);
      return;
    } catch (error) {
      const message = (error as Error).message.split("\n")[0]!.slice(0, 200);
      notes.push(`${job.path} ${job.kind} warm-up before round ${job.round}, attempt ${attempt}: ${message}`);
      if (attempt === 3) throw error;
    }
  }
}

async function measureKind(
  s: Services,
  kind: Kind,
  plan: ReturnType<typeof planJobs>["plan"],
  writers: Record<PathName, Writer>,
  resyncDirect: () => void,
  visibility: Visibility,
): Promise<{
  rounds: MeasuredRound[];
  rpc: Record<PathName, Counts>;
  cpu: Record<PathName, Map<string, number>>;
  cpuUntilVisible: Record<PathName, Map<string, number>>;
}> {
  const rounds: MeasuredRound[] = [];
  const rpc: Record<PathName, Counts> = { direct: new Map(), api: new Map() };
  const cpu: Record<PathName, Map<string, number>> = { direct: new Map(), api: new Map() };
  const cpuUntilVisible: Record<PathName, Map<string, number>> = { direct: new Map(), api: new Map() };
  const pids = {
    chain: s.chain.service.pid,
    "ponder (API, indexer)": s.ponder.service.pid,
    exchange: s.exchange.service.pid,
  };
  for (const step of plan) {
    // The API's relayer sent from the same account since the last direct round.
    if (step.path === "direct") resyncDirect();
    await warmUp(step.warmup, writers[step.path]);
    visibility.watch();
    const before = s.rpc?.snapshot();
    const cpuBefore = snapshotCpu(pids);
    log(`${kind}s, round ${step.round}, ${step.path}: ${step.jobs.length} writes, ${step.level} in flight`);
    const result = await runRound(step.jobs, step.level, writers[step.path]);
    addCpu(cpu[step.path], cpuBefore, snapshotCpu(pids));
    const failed = result.samples.filter((s) => s.key === undefined);
    for (const s of failed.slice(0, 3)) notes.push(`${step.path} ${kind} round ${step.round} failed: ${s.error}`);
    const keys = result.samples.flatMap((s) => (s.key === undefined ? [] : [s.key]));
    // The next round starts once this one is indexed, so no round pays for another's indexing.
    await visibility.waitAll(keys, cfg.BENCH_WRITES_VISIBLE_TIMEOUT_S * 1000);
    addCpu(cpuUntilVisible[step.path], cpuBefore, snapshotCpu(pids));
    if (before) sum(rpc[step.path], delta(before, s.rpc!.snapshot()));
    log(
      `  ${keys.length} done (${failed.length} failed) in ${(result.wallMs / 1000).toFixed(2)} s: ${((keys.length * 1000) / result.wallMs).toFixed(2)}/s`,
    );
    rounds.push({ ...result, path: step.path, round: step.round });
  }
  return { rounds, rpc, cpu, cpuUntilVisible };
}

type Measured = Awaited<ReturnType<typeof measureKind>>;

async function main(s: Services) {
  const levels = cfg.BENCH_WRITES_CONCURRENCY;
  let nextSymbol = 0;
  const plans = levels.map((level) => {
    const spawns = planJobs("spawn", level, cfg.BENCH_WRITES_SPAWNS, cfg.BENCH_WRITES_ROUNDS, nextSymbol);
    const votes = planJobs("vote", level, cfg.BENCH_WRITES_VOTES, cfg.BENCH_WRITES_ROUNDS, spawns.nextSymbol);
    nextSymbol = votes.nextSymbol;
    return { level, spawns: spawns.plan, votes: votes.plan };
  });
  const all = (plan: (typeof plans)[number]["spawns"]) => plan.flatMap((p) => [p.warmup, ...p.jobs]);
  const spawnJobs = plans.flatMap((p) => all(p.spawns));
  const voteJobs = plans.flatMap((p) => all(p.votes));
  log(`creating ${[...spawnJobs, ...voteJobs].filter((j) => j.path === "api").length} exchange users...`);
  await createUsers(s, [...spawnJobs, ...voteJobs]);
  const probe = await s.admin.user(20, {}, addressOf("readiness probe"));
  await writesReady(s.api, probe);
  log(`giving 10 ALPHA to ${voteJobs.length} voters, then a proposal past its voting delay...`);
  await giveAlpha(
    s,
    voteJobs.map((j) => j.address),
    "10",
  );
  const proposalId = await openProposal(s, "bench:writes");
  await waitIndexed(s.ponder, await s.chain.blockNumber(), 120_000);

  const direct = directWriters(s, cfg.RELAYER_POLL_MS, proposalId);
  const api = apiWriters(s, proposalId);
  const poll = cfg.BENCH_WRITES_VISIBLE_POLL_MS;
  const tokens = new Visibility(
    () => `${s.ponder.url}/api/launchpad/tokens?sort=recent&pageSize=100`,
    (body) => body.items.map((t: any) => String(t.address).toLowerCase()),
    poll,
  );
  const ballots = new Visibility(
    () => `${s.ponder.url}/api/agents/proposals/${proposalId}?pageSize=100`,
    (body) => body.votes.items.map((v: any) => String(v.voter).toLowerCase()),
    poll,
  );
  const measured: { level: number; spawn: Measured; vote: Measured }[] = [];
  try {
    for (const plan of plans) {
      const measure = (kind: Kind, visibility: Visibility) =>
        measureKind(
          s,
          kind,
          kind === "spawn" ? plan.spawns : plan.votes,
          { direct: direct[kind], api: api[kind] },
          direct.resync,
          visibility,
        );
      const spawn = await measure("spawn", tokens);
      const vote = await measure("vote", ballots);
      measured.push({ level: plan.level, spawn, vote });
    }
  } finally {
    await Promise.all([tokens.stop(), ballots.stop()]);
  }

  const reports = measured.flatMap((m) => [
    kindReport("spawn", m.level, m.spawn.rounds, tokens),
    kindReport("vote", m.level, m.vote.rounds, ballots),
  ]);
  console.log(
    `\nsigned writes through the API vs the same transactions sent directly (viem, the relayer's key); ` +
      `${levels.join(" then ")} in flight, ${cfg.BENCH_WRITES_ROUNDS} alternating rounds per path and level, ` +
      `Hardhat automine, Ponder on ${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}, RELAYER_POLL_MS=${cfg.RELAYER_POLL_MS}, read API polled every ${poll} ms\n`,
  );
  for (const report of reports) console.log(`${report.text}\n`);
  console.log(`Targets\n\n${targetsTable(reports)}\n`);
  const timed = (rounds: MeasuredRound[], path: PathName) =>
    rounds.filter((r) => r.path === path).reduce((n, r) => n + r.samples.length, 0);
  const pathCpu = (m: Measured, path: PathName) => ({
    cpu: m.cpu[path],
    untilVisible: m.cpuUntilVisible[path],
    writes: timed(m.rounds, path),
    wallMs: m.rounds.filter((r) => r.path === path).reduce((n, r) => n + r.wallMs, 0),
  });
  for (const { level, spawn, vote } of measured)
    for (const [kind, m] of [
      ["spawn", spawn],
      ["vote", vote],
    ] as const) {
      console.log(`${level} in flight\n${cpuTable(kind, pathCpu(m, "api"), pathCpu(m, "direct"))}\n`);
      if (s.rpc)
        console.log(`${rpcTable(kind, m.rpc.api, timed(m.rounds, "api"), m.rpc.direct, timed(m.rounds, "direct"))}\n`);
    }
  if (cfg.WRITES_TRACE) console.log(`${traceTables(s.ponder.service.log(true))}\n`);
  if (notes.length) console.log(`Notes\n\n${notes.map((n) => `- ${n}`).join("\n")}\n`);
  console.log(`target: api >= ${TARGET}x direct; total ${((performance.now() - began) / 1000).toFixed(0)} s`);
}

let exitCode = 0;
try {
  log(`temp dir ${tmp}`);
  await main(await startServices(cfg, tmp, started, log));
} catch (error) {
  console.error(`\nbenchmark failed: ${(error as Error).stack ?? error}`);
  if (notes.length) console.error(notes.join("\n"));
  printLogs([started.chain?.service, started.exchange?.service, started.ponder?.service], 40);
  exitCode = 1;
} finally {
  await stopServices(started);
  await stopAll();
  if (cfg.BENCH_KEEP_TMP) console.log(`kept ${tmp}`);
  else await rm(tmp, { recursive: true, force: true });
}
process.exit(exitCode);
