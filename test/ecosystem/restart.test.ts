/**
 * Crash and restart: while a stream of a few hundred events (actions, transfers, swaps and new
 * spawns, whose tokens and pools Ponder discovers through its factory) is being mined, one Ponder
 * is killed with SIGKILL mid-indexing, then started again on the same database (same schema,
 * same PGlite directory). Once caught up, its API must show the chain, and every table must
 * equal, row for row, the tables of a second Ponder that indexed the same chain without
 * interruption (one PGlite reference for every backend's subject, so the backends must also
 * agree with each other).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe } from "vitest";
import { type Address, parseEther, parseUnits } from "viem";
import { activity, ACCOUNTS } from "../../support/ecosystem/activity.ts";
import {
  type ChainModel,
  expectedActionLog,
  expectedOverview,
  expectedTokenItem,
  normalizeTokenItems,
  readChainModel,
  tokensNewestFirst,
} from "../../support/ecosystem/chain-model.ts";
import {
  backends,
  type Chain,
  createPrivateDatabase,
  deployAndSeed,
  e2eSeed,
  httpGet,
  headRow,
  makeRunDir,
  pgQuery,
  type Ponder,
  printLogs,
  removeRunDir,
  restartPonder,
  rng,
  sql,
  startChain,
  startPonder,
  stopAll,
  stopwatch,
  waitIndexed,
} from "../../support/ecosystem/harness.ts";
import { waitFor } from "../../support/wait.ts";
import { failureTracking } from "../../support/ecosystem/failure-tracking.ts";

const BACKENDS = backends();
const seed = e2eSeed();
const random = rng(seed);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
const STREAM_BLOCKS = 60;
const TXS_PER_BLOCK = 5;

/** Every indexed table with its primary key, for row-by-row comparison. */
const TABLES: [string, string][] = [
  ["agent_token", "address"],
  ["holder_count", "token"],
  ["holding", "token, account"],
  ["pool", "address"],
  ["swap", "id"],
  ["pool_candle", "pool, interval, bucket_start"],
  ["liquidity_event", "id"],
  ["agent_nft", "nft_id"],
  ["worker", "id"],
  ["action", "entry_id"],
  ["action_hour", "target_token_id, hour"],
  ["proposal", "id"],
  ["vote", "vote_id"],
  ["boost", "id"],
  ["chain_head", "chain_id"],
];

interface Pair {
  backend: string;
  subject: Ponder;
  reference: Ponder;
  killedAtBlock?: number;
  /** The newest block the subject had indexed when it was killed. */
  indexedAtKill?: number;
}

const ctx = {} as {
  runDir: string;
  chain: Chain;
  pairs: Pair[];
  closeViem: () => Promise<void>;
  dropDatabase?: () => Promise<void>;
  streamStart: number;
  streamEnd: number;
  model: ChainModel;
};
/** `test`: `it` that notes a failure in `run.failed`, so the logs of the run are printed at the end. */
const { test, run } = failureTracking();

beforeAll(async () => {
  try {
    const lap = stopwatch("restart");
    ctx.runDir = await makeRunDir("restart");
    ctx.chain = await startChain(ctx.runDir);
    const deployed = await deployAndSeed(ctx.chain, ctx.runDir);
    ctx.closeViem = deployed.close;
    const contracts = deployed.deployment.contracts;
    const act = await activity(deployed.viem, contracts);
    const seeded = await readChainModel(ctx.chain.url, contracts);
    const postgres = BACKENDS.find((b) => b.kind === "postgres");
    const db = postgres?.kind === "postgres" ? await createPrivateDatabase(postgres.url, "restart") : undefined;
    ctx.dropDatabase = db?.drop;
    const common = { runDir: ctx.runDir, chain: ctx.chain, deploymentFile: deployed.deploymentFile };
    // One subject per backend, and one uninterrupted reference (PGlite) for all of them: the
    // subjects' tables must equal it whatever their backend.
    const [reference, ...subjects] = await Promise.all([
      startPonder({ ...common, name: "reference", backend: { kind: "pglite" } }),
      ...BACKENDS.map((b) =>
        startPonder({
          ...common,
          name: `${b.kind}-subject`,
          backend: b.kind === "postgres" ? { kind: "postgres", url: db!.url } : b,
        }),
      ),
    ]);
    ctx.pairs = BACKENDS.map((b, i) => ({ backend: b.kind, subject: subjects[i], reference }));
    lap("chain seeded, ponders started");
    ctx.streamStart = await ctx.chain.blockNumber();
    await Promise.all([reference, ...subjects].map((p) => waitIndexed(p, ctx.streamStart, 90_000)));

    // The stream: STREAM_BLOCKS blocks of TXS_PER_BLOCK transactions each. Each subject is
    // killed once it has indexed a random block in the first half of the stream (so it is
    // behind the head: mid-indexing) and started again at once on the same database; the
    // stream goes on meanwhile, and the restarted Ponder has to wait for the dead one's lock.
    lap("ponders indexed the seed");
    const killAt = ctx.streamStart + 2 + Math.floor(STREAM_BLOCKS * (0.15 + 0.35 * random()));
    console.log(
      `# stream of ${STREAM_BLOCKS} blocks x ${TXS_PER_BLOCK} transactions from block ${ctx.streamStart + 1}; ` +
        `subjects killed once they have indexed block ${killAt}`,
    );
    const restarts = ctx.pairs.map(async (pair) => {
      await waitFor(
        `${pair.subject.name} to reach block ${killAt}`,
        async () => (await headRow(pair.subject)) >= killAt,
        {
          timeoutMs: 120_000,
          intervalMs: 20,
          alive: [pair.subject.service],
        },
      );
      pair.indexedAtKill = await headRow(pair.subject);
      await pair.subject.service.crash();
      pair.killedAtBlock = await ctx.chain.blockNumber();
      lap(`${pair.subject.name} killed (chain at block ${pair.killedAtBlock})`);
      pair.subject = await restartPonder(pair.subject);
      lap(`${pair.subject.name} restarted`);
    });

    const [alpha, beta, gamma, delta, omega] = seeded.tokens;
    const tokens: { address: Address; pool: Address; nftId: bigint; side: string; owner: number; canAct: boolean }[] = [
      { ...alpha, nftId: BigInt(alpha.nftId), owner: 4, canAct: true },
      { ...beta, nftId: BigInt(beta.nftId), owner: 5, canAct: true },
      { ...gamma, nftId: BigInt(gamma.nftId), owner: 6, canAct: true },
      { ...delta, nftId: BigInt(delta.nftId), owner: 7, canAct: false },
      { ...omega, nftId: BigInt(omega.nftId), owner: 8, canAct: false },
    ];
    // Spawns early, in the middle and late: Ponder discovers their tokens and pools (factory)
    // before the kill, around it and after the restart.
    const spawnAt = new Map([
      [2, 13],
      [Math.floor(STREAM_BLOCKS * 0.5), 14],
      [Math.floor(STREAM_BLOCKS * 0.85), 16],
    ]);
    const types = ["trade", "rebalance", "flag", "directive", "config_update"];
    for (let block = 0; block < STREAM_BLOCKS; block++) {
      const owner = spawnAt.get(block);
      if (owner !== undefined) {
        const symbol = `RS${String.fromCharCode(65 + (block % 26))}${String.fromCharCode(65 + (owner % 26))}`;
        const spawned = await act.spawn(owner, symbol, 0);
        // The owner's transfers below need tokens, and a spawn gives none: it buys its stake.
        await act.buyStake(owner, spawned.pool, parseUnits("100", 6));
        tokens.push({
          address: spawned.token,
          pool: spawned.pool,
          nftId: spawned.nftId,
          side: "STABLE",
          owner,
          canAct: true,
        });
        continue;
      }
      await act.inOneBlock(async (tx) => {
        for (let i = 0; i < TXS_PER_BLOCK; i++) {
          const r = random();
          const t = pick(tokens);
          if (r < 0.5) {
            const operator =
              t.canAct && random() < 0.5 ? ACCOUNTS.workerOperator : pick([ACCOUNTS.queen, ...ACCOUNTS.scouts]);
            const type = random() < 0.05 && operator !== ACCOUNTS.workerOperator ? "override" : pick(types);
            // An override suspends the token's worker (ActionLog): its operator's records would revert.
            if (type === "override") t.canAct = false;
            await tx.act(operator, t.nftId, type, { block, i, note: `restart-${seed}` }, `R${block}_${i}`);
          } else if (r < 0.8) {
            const to = pick(ACCOUNTS.users.filter((u) => u !== t.owner));
            await tx.transfer(t.address, t.owner, to, parseEther(String(1 + Math.floor(random() * 1000))));
          } else {
            // Only the seeded pools: the seed approved them for every user.
            const pool = pick(tokens.slice(0, 5).filter((x) => x.side === "STABLE"));
            await tx.buy(pool.pool, pick(ACCOUNTS.users), parseUnits(String(1 + Math.floor(random() * 20)), 6));
          }
        }
      });
    }
    ctx.streamEnd = await ctx.chain.blockNumber(); // every block of the stream holds events
    lap(`stream mined up to block ${ctx.streamEnd}`);
    await Promise.all(restarts);

    // Everyone catches up with the chain.
    await Promise.all(
      [reference, ...ctx.pairs.map((p) => p.subject)].map((p) => waitIndexed(p, ctx.streamEnd, 120_000)),
    );
    lap("every ponder caught up");
    ctx.model = await readChainModel(ctx.chain.url, contracts);
  } catch (error) {
    run.failed = true;
    throw error;
  }
});

/**
 * Every table of a stopped Ponder, read straight from its database with schema-qualified names
 * (Ponder's /sql only takes unqualified names, which a leftover temporary table can shadow, see
 * the note in the test below).
 */
/** Rows as plain JSON values, so the two drivers' rows compare equal when the data is. */
const plain = (rows: Record<string, unknown>[]) => JSON.parse(JSON.stringify(rows)) as Record<string, unknown>[];

async function readTables(ponder: Ponder): Promise<Record<string, Record<string, unknown>[]>> {
  const backend = ponder.options.backend;
  const out: Record<string, Record<string, unknown>[]> = {};
  const queries = TABLES.map(
    ([table, key]) => [table, `select * from "${ponder.schema}"."${table}" order by ${key}`] as const,
  );
  if (backend.kind === "postgres") {
    for (const [table, query] of queries) out[table] = plain(await pgQuery(backend.url, query));
    return out;
  }
  const db = new PGlite(join(ponder.workDir, ".data", "ponder"));
  try {
    for (const [table, query] of queries) out[table] = plain((await db.query<Record<string, unknown>>(query)).rows);
  } finally {
    await db.close();
  }
  return out;
}

afterAll(async () => {
  if (run.failed)
    printLogs([
      ctx.chain?.service,
      ctx.pairs?.[0]?.reference.service,
      ...(ctx.pairs ?? []).map((p) => p.subject.service),
    ]);
  await Promise.all((ctx.pairs ?? []).flatMap((p) => [p.subject.stop(), p.reference.stop()]));
  await ctx.closeViem?.();
  await ctx.chain?.stop();
  await ctx.dropDatabase?.();
  await stopAll();
  if (ctx.runDir) await removeRunDir(ctx.runDir);
});

for (const backend of BACKENDS) {
  describe(`restart after SIGKILL mid-indexing, on ${backend.kind}`, () => {
    const pair = () => ctx.pairs.find((p) => p.backend === backend.kind)!;

    test("the subject was killed mid-stream and resumed from its own database", async () => {
      const { subject, killedAtBlock, indexedAtKill } = pair();
      assert.ok(killedAtBlock !== undefined && indexedAtKill !== undefined);
      // Killed with part of the stream indexed and part not.
      assert.ok(
        indexedAtKill > ctx.streamStart && indexedAtKill < ctx.streamEnd,
        `killed having indexed block ${indexedAtKill}`,
      );
      assert.ok(
        killedAtBlock > ctx.streamStart && killedAtBlock <= ctx.streamEnd,
        `killed at chain block ${killedAtBlock}`,
      );
      // The restarted Ponder found the killed one's lock and recovered its indexed state.
      assert.match(
        subject.service.log(true),
        /Detected crash recovery/,
        "the restart did not recover the earlier run's state",
      );
    });

    test("the API after the restart shows every event of the stream, as the uninterrupted run does", async () => {
      const { subject, reference } = pair();
      for (const ponder of [subject, reference]) {
        const log = await httpGet(ponder.url, "/api/agents/action-logs?pageSize=100");
        assert.equal(log.status, 200, log.text);
        assert.equal(log.body.totalItems, ctx.model.actions.length);
        assert.deepEqual(log.body.items, expectedActionLog(ctx.model).slice(0, 100));
        const tokens = await httpGet(ponder.url, "/api/launchpad/tokens?pageSize=100");
        assert.deepEqual(
          normalizeTokenItems(ctx.model, tokens.body.items),
          tokensNewestFirst(ctx.model).map((t) => expectedTokenItem(ctx.model, t)),
        );
        assert.deepEqual((await httpGet(ponder.url, "/api/agents/overview")).body, expectedOverview(ctx.model));
        const swaps = await sql<{ n: unknown }>(ponder.url, "select count(*) as n from swap");
        assert.equal(
          Number(swaps[0].n),
          ctx.model.tokens.reduce((n, t) => n + t.swaps.length, 0),
        );
      }
      // Known Ponder 0.17.7 + PGlite issue (reported, not asserted): a SIGKILL during a cache
      // flush leaves the flush's TEMP table (named like the target table) in PGlite's catalog,
      // and after the restart it shadows the real table for every unqualified read in that
      // session, /sql included. Printed so it stays visible.
      for (const [table] of TABLES) {
        const query = `select count(*) as n from ${table}`;
        const [mine, theirs] = await Promise.all([
          sql<{ n: unknown }>(subject.url, query),
          sql<{ n: unknown }>(reference.url, query),
        ]);
        if (Number(mine[0].n) !== Number(theirs[0].n)) {
          console.log(
            `# NOTE ${backend.kind}: /sql sees ${mine[0].n} rows of ${table} after the restart, ${theirs[0].n} uninterrupted (shadowing temp table)`,
          );
        }
      }
    });
  });
}

describe("tables after the restart (read from the databases once every Ponder is stopped)", () => {
  let reference: Record<string, Record<string, unknown>[]>;
  beforeAll(async () => {
    await Promise.all([ctx.pairs[0].reference.stop(), ...ctx.pairs.map((p) => p.subject.stop())]);
    reference = await readTables(ctx.pairs[0].reference);
  });

  test("the uninterrupted reference holds the whole chain", async () => {
    assert.equal(reference.action.length, ctx.model.actions.length);
    assert.equal(reference.agent_token.length, ctx.model.tokens.length);
    assert.equal(
      reference.swap.length,
      ctx.model.tokens.reduce((n, t) => n + t.swaps.length, 0),
    );
  });

  for (const backend of BACKENDS) {
    test(`every table of the restarted ${backend.kind} Ponder equals the uninterrupted run's, row for row`, async () => {
      const mine = await readTables(ctx.pairs.find((p) => p.backend === backend.kind)!.subject);
      for (const [table] of TABLES) {
        assert.ok(reference[table].length > 0 || table === "liquidity_event", `${table} is empty in the reference`);
        assert.equal(
          mine[table].length,
          reference[table].length,
          `${table}: ${mine[table].length} rows after the restart, ${reference[table].length} uninterrupted`,
        );
        assert.deepEqual(mine[table], reference[table], `${table} differs`);
      }
    });
  }
});
