/**
 * Chain reorganisation, run on the conformance file's chain and Ponders once its other tests
 * are done (one chain and one set of Ponders fewer to start): Ponder indexes a branch (spawns,
 * actions, a transfer, a swap), the chain is reverted to a snapshot taken before it and a
 * different, longer branch is mined. The API, GraphQL and SQL must then show exactly the
 * surviving branch and nothing of the dropped one, on every backend. Ponder detects the reorg
 * in its realtime sync from block hashes and parent hashes.
 */
import assert from "node:assert/strict";
import { beforeAll, describe, it } from "vitest";
import type { Deployment } from "../../lib/deployments.ts";
import { activity, ACCOUNTS, type Activity } from "../../support/ecosystem/activity.ts";
import {
  apiNow,
  type ChainModel,
  expectedActionLog,
  expectedCandles,
  expectedHolders,
  expectedOverview,
  expectedTokenItem,
  expectedTrades,
  normalizeCandles,
  normalizeHolders,
  normalizeTokenItems,
  normalizeTrades,
  readChainModel,
  tokensNewestFirst,
} from "../../support/ecosystem/chain-model.ts";
import {
  type Chain,
  e2eSeed,
  graphql,
  httpGet,
  indexedBlock,
  type Ponder,
  rng,
  sql,
  stopwatch,
  type Viem,
  waitIndexed,
} from "../../support/ecosystem/harness.ts";
import { waitFor } from "../../support/wait.ts";

export interface ReorgEnv {
  chain: Chain;
  viem: Viem;
  contracts: Deployment["contracts"];
  /** The Ponders under test, by backend name. */
  ponders: { backend: string; ponder: Ponder }[];
}

/**
 * Registers the reorg suite for `backends`. `env` is read when the suite starts (after the
 * tests registered before it); `onFailure` is called on any failure (to print the logs).
 */
export function describeReorg(backends: string[], env: () => ReorgEnv, onFailure: () => void) {
  describe("chain reorganisation", () => {
    const seed = e2eSeed();
    const random = rng(seed);
    const letters = (n: number) =>
      Array.from({ length: n }, () => String.fromCharCode(65 + Math.floor(random() * 26))).join("");

    interface Branch {
      symbols: string[];
      txHashes: string[];
      head: number;
    }

    const ctx = {} as {
      chain: Chain;
      ponders: Ponder[];
      act: Activity;
      contracts: Deployment["contracts"];
      dropped: Branch;
      surviving: Branch;
      model: ChainModel;
      seenBeforeRevert: Map<string, string[]>;
    };
    const test = (name: string, fn: () => Promise<void>) =>
      it(name, async () => {
        try {
          await fn();
        } catch (error) {
          onFailure();
          throw error;
        }
      });

    /** Symbols of the tokens an API lists. */
    async function listedSymbols(ponder: Ponder): Promise<string[]> {
      const res = await httpGet(ponder.url, "/api/launchpad/tokens?pageSize=100");
      if (res.status !== 200) throw new Error(`/api/launchpad/tokens ${res.status}: ${res.text}`);
      return res.body.items.map((i: { symbol: string }) => i.symbol).sort();
    }

    beforeAll(async () => {
      try {
        const lap = stopwatch("reorg");
        const { chain, viem, contracts, ponders } = env();
        ctx.chain = chain;
        ctx.contracts = contracts;
        ctx.ponders = backends.map((name) => ponders.find((p) => p.backend === name)!.ponder);
        ctx.act = await activity(viem, contracts);
        lap("ponders indexed the seed");
        const models = await readChainModel(ctx.chain.url, ctx.contracts);
        const [alpha, beta] = models.tokens;
        const snapshot = await ctx.chain.rpc<string>("evm_snapshot");

        // Branch 1 (to be dropped): two spawns, a directive and a trade on them, a transfer, a swap.
        const dropped: Branch = { symbols: [`RA${letters(3)}`, `RB${letters(3)}`], txHashes: [], head: 0 };
        const first = await ctx.act.spawn(13, dropped.symbols[0], 0);
        const second = await ctx.act.spawn(14, dropped.symbols[1], 1);
        dropped.txHashes.push(first.receipt.transactionHash, second.receipt.transactionHash);
        for (const receipt of [
          await ctx.act.act(ACCOUNTS.queen, first.nftId, "directive", { instruction: "branch_one" }, "REORG_A"),
          await ctx.act.act(ACCOUNTS.workerOperator, second.nftId, "trade", { side: "buy" }, "REORG_A"),
          await ctx.act.transfer(alpha.address, 4, 15, 10n ** 18n),
          await ctx.act.swap(alpha.pool, ctx.act.stableAddress, 7, 10n ** 6n * 50n),
        ]) {
          dropped.txHashes.push(receipt.transactionHash);
        }
        dropped.head = await ctx.chain.blockNumber();
        ctx.dropped = dropped;
        // Every Ponder has indexed branch 1 and the API shows it.
        ctx.seenBeforeRevert = new Map();
        for (const ponder of ctx.ponders) {
          await waitIndexed(ponder, dropped.head);
          const symbols = await waitFor(`${ponder.name} to list branch 1`, async () => {
            const listed = await listedSymbols(ponder);
            return dropped.symbols.every((s) => listed.includes(s)) ? listed : undefined;
          });
          ctx.seenBeforeRevert.set(ponder.name, symbols);
        }

        lap("branch 1 indexed");
        // Revert, then a different and longer branch 2.
        assert.equal(await ctx.chain.rpc("evm_revert", [snapshot]), true);
        const surviving: Branch = { symbols: [`RC${letters(3)}`], txHashes: [], head: 0 };
        const third = await ctx.act.spawn(15, surviving.symbols[0], 1);
        surviving.txHashes.push(third.receipt.transactionHash);
        for (const receipt of [
          await ctx.act.act(ACCOUNTS.scouts[0], third.nftId, "flag", { signal: "branch_two" }, "REORG_B"),
          await ctx.act.act(
            ACCOUNTS.queen,
            BigInt(beta.nftId),
            "override",
            { overrides: "trade", action: "halt" },
            "REORG_B",
          ),
          await ctx.act.act(ACCOUNTS.workerOperator, third.nftId, "rebalance", { targetRatioBps: 4200 }, "REORG_B"),
        ]) {
          surviving.txHashes.push(receipt.transactionHash);
        }
        const extraBlocks = dropped.head + 3 - (await ctx.chain.blockNumber());
        if (extraBlocks > 0) await ctx.chain.rpc("hardhat_mine", [`0x${extraBlocks.toString(16)}`]);
        surviving.head = await ctx.chain.blockNumber();
        assert.ok(surviving.head > dropped.head);
        ctx.surviving = surviving;
        await Promise.all(ctx.ponders.map((p) => waitIndexed(p, surviving.head)));
        lap("branch 2 indexed");
        ctx.model = await readChainModel(ctx.chain.url, ctx.contracts);
      } catch (error) {
        onFailure();
        throw error;
      }
    });

    describe("the chain (premise)", () => {
      test("the dropped branch is gone from the chain and the surviving one is there", async () => {
        const symbols = ctx.model.tokens.map((t) => t.symbol);
        for (const s of ctx.dropped.symbols) assert.ok(!symbols.includes(s), `${s} still on chain`);
        for (const s of ctx.surviving.symbols) assert.ok(symbols.includes(s), `${s} not on chain`);
        const client = ctx.model.client;
        for (const hash of ctx.dropped.txHashes) {
          assert.equal(
            await client.getTransactionReceipt({ hash: hash as `0x${string}` }).catch(() => null),
            null,
            `${hash} still mined`,
          );
        }
      });
    });

    for (const backend of backends) {
      describe(`after a reorg, on ${backend}`, () => {
        const ponder = () => ctx.ponders[backends.indexOf(backend)];
        const get = async (path: string) => {
          const res = await httpGet(ponder().url, path);
          assert.equal(res.status, 200, `${path}: ${res.text}`);
          return res.body;
        };

        test("the API had shown the dropped branch before the revert", async () => {
          const seen = ctx.seenBeforeRevert.get(ponder().name)!;
          for (const s of ctx.dropped.symbols) assert.ok(seen.includes(s));
          assert.ok((await indexedBlock(ponder())) >= ctx.surviving.head);
          // Ponder took its reorg path (reverting the dropped blocks' rows), not a restart or a fresh sync.
          assert.match(ponder().service.log(true), /Reorged block/, "Ponder logged no reorg");
        });

        test("tokens list: exactly the surviving branch's tokens, field by field", async () => {
          const body = await get("/api/launchpad/tokens?pageSize=100");
          assert.equal(body.totalItems, ctx.model.tokens.length);
          assert.deepEqual(
            normalizeTokenItems(ctx.model, body.items),
            tokensNewestFirst(ctx.model).map((t) => expectedTokenItem(ctx.model, t)),
          );
          for (const s of ctx.dropped.symbols) {
            const gone = await httpGet(ponder().url, `/api/launchpad/tokens?pageSize=100`);
            assert.ok(!gone.body.items.some((i: { symbol: string }) => i.symbol === s), `${s} still listed`);
          }
        });

        test("action log, overview and workers: the surviving branch's entries (same entry ids, other actions)", async () => {
          const log = await get("/api/agents/action-logs?pageSize=100");
          assert.equal(log.totalItems, ctx.model.actions.length);
          assert.deepEqual(log.items, expectedActionLog(ctx.model));
          for (const hash of ctx.dropped.txHashes) {
            assert.ok(
              !log.items.some((i: { txHash: string }) => i.txHash === hash),
              `dropped ${hash} still in the action log`,
            );
          }
          assert.deepEqual(await get("/api/agents/overview"), expectedOverview(ctx.model));
          const workers = await get("/api/agents/workers?pageSize=100");
          assert.deepEqual(
            workers.items.map((w: { workerId: number; tokenAddress: string; status: string }) => [
              w.workerId,
              w.tokenAddress,
              w.status,
            ]),
            ctx.model.workers.map((w) => [w.id, w.token, w.status]),
          );
        });

        test("reverted transfer and swap: holders and the pool are back to the chain's state", async () => {
          const alpha = ctx.model.tokens[0];
          const detail = await get(`/api/launchpad/tokens/${alpha.address}/pool`);
          assert.equal(detail.swapCount24h, alpha.swaps.filter((s) => s.timestamp > apiNow(ctx.model) - 86_400).length);
          assert.deepEqual(
            detail.recentTrades.map((t: { txHash: string }) => t.txHash),
            [...alpha.swaps].reverse().map((s) => s.txHash),
          );
          const rows = await sql<{ token: string; account: string; balance: string }>(
            ponder().url,
            "select token, account, balance from holding where token = $1 and account = $2",
            [alpha.address, ctx.act.address(15).toLowerCase()],
          );
          assert.deepEqual(rows, [], "the dropped transfer's recipient still holds ALPHA");
          const holders = await sql<{ holders: number }>(
            ponder().url,
            "select holders from holder_count where token = $1",
            [alpha.address],
          );
          assert.equal(Number(holders[0].holders), alpha.holders);
          // The pool's trades, candles (a rollup the swap had updated) and holders list are back too.
          const trades = await get(`/api/launchpad/tokens/${alpha.address}/trades?pageSize=100`);
          assert.deepEqual(normalizeTrades(alpha, trades.items), expectedTrades(alpha));
          assert.equal(trades.totalItems, alpha.swaps.length);
          const end = ctx.model.headTimestamp;
          // The last 4,000 minutes (under the 5,000-candle cap), and every day since the spawn.
          for (const [interval, start] of [
            ["minute", end - 4_000 * 60],
            ["day", alpha.spawnedAt],
          ] as const) {
            const path = `/api/launchpad/tokens/${alpha.address}/candles?interval=${interval}&start=${start}&end=${end}`;
            const candles = await get(path);
            assert.deepEqual(normalizeCandles(alpha, candles), expectedCandles(alpha, interval, start, end), interval);
          }
          const list = await get(`/api/launchpad/tokens/${alpha.address}/holders?pageSize=100`);
          assert.deepEqual(normalizeHolders(list.items), expectedHolders(alpha));
        });

        test("GraphQL and SQL agree: no row of the dropped branch in any table", async () => {
          const data = await graphql<{ agentTokens: { items: { symbol: string }[] } }>(
            ponder().url,
            "{ agentTokens(limit: 100) { items { symbol } } }",
          );
          assert.deepEqual(
            data.agentTokens.items.map((t) => t.symbol).sort(),
            ctx.model.tokens.map((t) => t.symbol).sort(),
          );
          for (const [table, column] of [
            ["agent_token", "spawn_tx_hash"],
            ["action", "tx_hash"],
            ["swap", "tx_hash"],
          ] as const) {
            const rows = await sql(ponder().url, `select ${column} from ${table} where ${column} = any($1)`, [
              ctx.dropped.txHashes,
            ]);
            assert.deepEqual(rows, [], `${table} keeps rows of the dropped branch`);
          }
          const head = await sql<{ block_number: string; timestamp: number }>(
            ponder().url,
            "select block_number, timestamp from chain_head",
          );
          assert.equal(Number(head[0].timestamp), ctx.model.lastEventTimestamp);
        });
      });
    }
  });
}
