/**
 * The server-sent event streams over real HTTP, chain and indexer, on every backend: action-log
 * entries recorded on chain arrive on /api/agents/action-logs/stream with ids and the REST
 * list's shape; a client reconnecting with Last-Event-ID gets what it missed, without gap or
 * double; /api/launchpad/stream shows a spawn and a swap; and, last, a reorg (evm_revert to a
 * snapshot, then a longer branch) makes both streams retract what it withdrew.
 */
import assert from "node:assert/strict";
import { afterAll, beforeAll, describe } from "vitest";
import type { Deployment } from "../../lib/deployments.ts";
import { ACCOUNTS, type Activity, activity } from "../../support/ecosystem/activity.ts";
import { failureTracking } from "../../support/ecosystem/failure-tracking.ts";
import {
  backends,
  type Chain,
  createPrivateDatabase,
  deployAndSeed,
  httpGet,
  makeRunDir,
  type Ponder,
  printLogs,
  removeRunDir,
  startChain,
  startPonder,
  stopAll,
  stopwatch,
  waitIndexed,
} from "../../support/ecosystem/harness.ts";
import { waitFor } from "../../support/wait.ts";
import { openSse, type SseMessage, type SseReader } from "../../support/sse.ts";

const BACKENDS = backends();
const EVENT_ID = /^(\d+)-(\d+)-[0-9a-f]{8}$/;
/** Indexing (Ponder polls the chain every 100 ms here) plus the streams' own polling. */
const ARRIVAL_MS = 30_000;

const ctx = {} as {
  runDir: string;
  chain: Chain;
  ponders: Ponder[];
  act: Activity;
  contracts: Deployment["contracts"];
  alpha: { nftId: bigint; token: `0x${string}`; pool: `0x${string}` };
  closeViem: () => Promise<void>;
  dropDatabase?: () => Promise<void>;
};
const { test, run } = failureTracking();
const readers: SseReader[] = [];

async function stream(ponder: Ponder, path: string, headers: Record<string, string> = {}) {
  const reader = await openSse(fetch(`${ponder.url}${path}`, { headers }));
  readers.push(reader);
  return reader;
}
async function closeStreams() {
  await Promise.all(readers.splice(0).map((r) => r.close()));
}
const data = (message: SseMessage) => JSON.parse(message.data);
const entryIdOf = (message: SseMessage) => Number(EVENT_ID.exec(message.id!)![2]);
/** The REST list's newest `n` entries, oldest first. */
async function newestEntries(ponder: Ponder, n: number) {
  const res = await httpGet(ponder.url, `/api/agents/action-logs?pageSize=${n}`);
  assert.equal(res.status, 200, res.text);
  return [...res.body.items].reverse();
}
/** A REST answer's body, once it is 200 (a block Ponder reverts and indexes again is briefly absent). */
const restBody = (ponder: Ponder, path: string) =>
  waitFor(`${ponder.name} ${path}`, async () => {
    const res = await httpGet(ponder.url, path);
    return res.status === 200 ? res.body : undefined;
  });
/**
 * The events a client holds once it applies the retractions: Ponder may revert a block and index it
 * again (it sometimes reorgs one block deeper than the chain did), which the stream reports as a
 * retraction and the same event again.
 */
function netEvents(messages: SseMessage[]): SseMessage[] {
  const held = new Map<string, SseMessage>();
  for (const m of messages) {
    if (m.event === "retract") held.delete(data(m).id);
    else if (m.id) held.set(m.id, m);
  }
  const place = (m: SseMessage) => EVENT_ID.exec(m.id!)!.slice(1, 3).map(Number) as [number, number];
  return [...held.values()].sort((a, b) => place(a)[0] - place(b)[0] || place(a)[1] - place(b)[1]);
}
const record = (label: string) =>
  ctx.act.act(ACCOUNTS.queen, ctx.alpha.nftId, "directive", { instruction: label }, "STREAM_TEST");
/**
 * Waits until every Ponder has indexed the chain's head: a stream opened after it starts past
 * what earlier tests recorded (one Ponder may lag the other on the shared chain).
 */
async function indexedEverywhere() {
  const head = await ctx.chain.blockNumber();
  await Promise.all(ctx.ponders.map((p) => waitIndexed(p, head)));
}
/** A test of its own: it starts with every Ponder caught up, so no earlier block reaches its streams. */
const streamTest = (name: string, fn: () => Promise<void>) =>
  test(name, async () => {
    await indexedEverywhere();
    try {
      await fn();
    } finally {
      await closeStreams();
    }
  });

beforeAll(async () => {
  try {
    const lap = stopwatch("streams");
    ctx.runDir = await makeRunDir("streams");
    ctx.chain = await startChain(ctx.runDir);
    const deployed = await deployAndSeed(ctx.chain, ctx.runDir);
    ctx.closeViem = deployed.close;
    ctx.contracts = deployed.deployment.contracts;
    ctx.act = await activity(deployed.viem, ctx.contracts);
    ctx.alpha = deployed.summary!.tokens.find((t) => t.symbol === "ALPHA")!;
    lap("chain seeded");
    const postgres = BACKENDS.find((b) => b.kind === "postgres");
    const db = postgres?.kind === "postgres" ? await createPrivateDatabase(postgres.url, "streams") : undefined;
    ctx.dropDatabase = db?.drop;
    ctx.ponders = await Promise.all(
      BACKENDS.map((backend) =>
        startPonder({
          runDir: ctx.runDir,
          chain: ctx.chain,
          deploymentFile: deployed.deploymentFile,
          name: backend.kind,
          backend: backend.kind === "postgres" ? { kind: "postgres", url: db!.url } : backend,
          env: { SSE_POLL_MS: "100" },
        }),
      ),
    );
    await indexedEverywhere();
    lap("ponders indexed the seed");
  } catch (error) {
    run.failed = true;
    throw error;
  }
});

afterAll(async () => {
  await closeStreams();
  if (run.failed) printLogs([ctx.chain?.service, ...(ctx.ponders ?? []).map((p) => p.service)]);
  await Promise.all((ctx.ponders ?? []).map((p) => p.stop()));
  await ctx.closeViem?.();
  await ctx.chain?.stop();
  await ctx.dropDatabase?.();
  await stopAll();
  if (ctx.runDir) await removeRunDir(ctx.runDir);
});

describe("GET /api/agents/action-logs/stream", () => {
  streamTest("entries recorded on chain arrive in order, with ids, shaped as the REST list shows them", async () => {
    const streams = await Promise.all(ctx.ponders.map((p) => stream(p, "/api/agents/action-logs/stream")));
    for (const label of ["one", "two", "three"]) await record(label);
    for (const [i, s] of streams.entries()) {
      const got = [await s.next(ARRIVAL_MS), await s.next(ARRIVAL_MS), await s.next(ARRIVAL_MS)];
      for (const m of got) assert.match(m.id ?? "", EVENT_ID);
      assert.deepEqual(
        got.map((m) => m.event),
        ["action", "action", "action"],
      );
      assert.deepEqual(got.map(data), await newestEntries(ctx.ponders[i]!, 3), ctx.ponders[i]!.name);
      assert.deepEqual(
        got.map((m) => data(m).actionPayload.instruction),
        ["one", "two", "three"],
      );
      const [a, b, c] = got.map(entryIdOf);
      assert.deepEqual([b! - a!, c! - b!], [1, 1], "consecutive entries");
    }
  });

  streamTest("a client reconnecting with Last-Event-ID gets what it missed, without gap or double", async () => {
    for (const ponder of ctx.ponders) {
      // Everything recorded so far (the other backend's round too) is indexed before the stream
      // opens, so its first event is this round's first action.
      await waitIndexed(ponder, await ctx.chain.blockNumber());
      const first = await stream(ponder, "/api/agents/action-logs/stream");
      await record(`${ponder.name}-a`);
      await record(`${ponder.name}-b`);
      const seen = await first.next(ARRIVAL_MS);
      await first.close();
      // Missed while away: b, then c and d.
      await record(`${ponder.name}-c`);
      await record(`${ponder.name}-d`);
      await waitIndexed(ponder, await ctx.chain.blockNumber());
      const again = await stream(ponder, "/api/agents/action-logs/stream", { "Last-Event-ID": seen.id! });
      const caughtUp = [await again.next(ARRIVAL_MS), await again.next(ARRIVAL_MS), await again.next(ARRIVAL_MS)];
      await record(`${ponder.name}-e`);
      const live = await again.next(ARRIVAL_MS);
      const ids = [seen, ...caughtUp, live].map(entryIdOf);
      assert.deepEqual(
        ids,
        ids.map((_, i) => ids[0]! + i),
        `${ponder.name}: one run of entry ids, no gap, no double`,
      );
      assert.deepEqual(
        [seen, ...caughtUp, live].map((m) => data(m).actionPayload.instruction),
        ["a", "b", "c", "d", "e"].map((x) => `${ponder.name}-${x}`),
      );
      assert.deepEqual([...caughtUp, live].map(data), await newestEntries(ponder, 4));
    }
  });
});

describe("GET /api/launchpad/stream", () => {
  streamTest("shows a spawn as the token detail describes it, and a swap in its pool", async () => {
    const spawns = await Promise.all(ctx.ponders.map((p) => stream(p, "/api/launchpad/stream?types=spawn")));
    const all = await Promise.all(ctx.ponders.map((p) => stream(p, "/api/launchpad/stream")));
    const spawned = await ctx.act.spawn(13, "STRM", 0);
    // The creator buys its stake on the curve: mint, approve and the swap, in one block.
    await ctx.act.buyStake(13, spawned.pool, 10n ** 6n * 25n);
    for (const [i, ponder] of ctx.ponders.entries()) {
      const spawn = await spawns[i]!.next(ARRIVAL_MS);
      assert.equal(spawn.event, "spawn");
      const [block] = EVENT_ID.exec(spawn.id!)!.slice(1).map(Number);
      assert.equal(block, Number(spawned.receipt.blockNumber));
      await waitIndexed(ponder, await ctx.chain.blockNumber());
      const detail = await restBody(ponder, `/api/launchpad/tokens/${spawned.token}`);
      assert.deepEqual(data(spawn), {
        token: {
          address: detail.token.address,
          name: detail.token.name,
          symbol: "STRM",
          totalSupply: detail.token.totalSupply,
          owner: detail.token.owner,
        },
        pool: { address: detail.pool.address, side: "STABLE", feeTier: detail.pool.feeTier },
        worker: { id: detail.worker.id, agentNftId: detail.worker.agentNftId },
        txHash: spawned.receipt.transactionHash,
        spawnedAt: detail.token.spawnedAt,
      });
      const [first, second] = netEvents(await all[i]!.until((m) => m.event === "swap", ARRIVAL_MS));
      assert.deepEqual([first?.id, second?.event], [spawn.id, "swap"]);
      const pool = await restBody(ponder, `/api/launchpad/tokens/${spawned.token}/pool`);
      const trades = await restBody(ponder, `/api/launchpad/tokens/${spawned.token}/trades`);
      assert.deepEqual(data(second!), {
        ...pool.recentTrades[0],
        ...trades.items[0],
        tokenAddress: detail.token.address,
        poolAddress: detail.pool.address,
      });
    }
  });
});

describe("a reorg", () => {
  streamTest("retracts the action and the spawn it withdrew, then streams the new branch", async () => {
    const actions = await Promise.all(ctx.ponders.map((p) => stream(p, "/api/agents/action-logs/stream")));
    const launchpad = await Promise.all(ctx.ponders.map((p) => stream(p, "/api/launchpad/stream")));
    const snapshot = await ctx.chain.rpc<string>("evm_snapshot");
    // Branch 1, to be dropped: an action and a spawn.
    await record("dropped");
    const dropped = await ctx.act.spawn(14, "GONE", 1);
    const sent = await Promise.all(actions.map((s) => s.next(ARRIVAL_MS)));
    const sentSpawns = await Promise.all(launchpad.map((s) => s.next(ARRIVAL_MS)));
    for (const spawn of sentSpawns) assert.equal(data(spawn).txHash, dropped.receipt.transactionHash);
    const droppedHead = await ctx.chain.blockNumber();
    // Branch 2, longer: another action (same entry id, another transaction), then empty blocks.
    assert.equal(await ctx.chain.rpc("evm_revert", [snapshot]), true);
    await record("kept");
    await ctx.chain.rpc("hardhat_mine", ["0x3"]);
    assert.ok((await ctx.chain.blockNumber()) > droppedHead);
    for (const [i, ponder] of ctx.ponders.entries()) {
      const [retract, replacement] = await actions[i]!.until((m) => m.event === "action", ARRIVAL_MS);
      assert.deepEqual([retract?.event, data(retract!)], ["retract", { id: sent[i]!.id, event: "action" }]);
      assert.equal(data(replacement!).actionPayload.instruction, "kept");
      assert.equal(entryIdOf(replacement!), entryIdOf(sent[i]!), `${ponder.name}: the same entry id`);
      assert.notEqual(replacement!.id, sent[i]!.id);
      const spawnRetract = await launchpad[i]!.next(ARRIVAL_MS);
      assert.deepEqual(data(spawnRetract), { id: sentSpawns[i]!.id, event: "spawn" });
      assert.match(ponder.service.log(true), /Reorged block/, "Ponder took its reorg path");
    }
  });
});
