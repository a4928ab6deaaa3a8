/**
 * The agent runtime end to end: a seeded chain, Ponder (the read API) on PGlite, and the runtime
 * (every worker, the queen and both scouts) ticking every 500 ms. Unattended, workers trade within
 * their caps; then scripted market moves (a large buy, a volume spike, a new spawn, a worker's
 * trade beyond its cap) produce the expected flags, directives and overrides in
 * /api/agents/action-logs with the right tiers, each within WITHIN_MS of the move; the override
 * suspends the worker until the queen resumes it.
 */
import { setTimeout as sleep } from "node:timers/promises";
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type Address,
  createPublicClient,
  decodeEventLog,
  type Hex,
  http,
  maxUint256,
  parseEther,
  parseUnits,
  type PublicClient,
  type TransactionReceipt,
} from "viem";
import { afterAll, beforeAll, describe } from "vitest";
import { impactBps, type PoolReserves } from "../../agents/pool/index.ts";
import { type AgentsHandle, startAgents } from "../../agents/runtime/index.ts";
import { DEFAULT_QUEEN_PARAMS } from "../../agents/strategy/index.ts";
import { AgentPoolAbi, AgentRegistryAbi, AgentSpawnerAbi } from "../../indexer/abis.ts";
import {
  type Chain,
  deployAndSeed,
  httpGet,
  makeRunDir,
  type Ponder,
  printLogs,
  removeRunDir,
  startChain,
  startPonder,
  stopAll,
  type Viem,
} from "../../support/ecosystem/harness.ts";
import { waitFor } from "../../support/wait.ts";
import { failureTracking } from "../../support/ecosystem/failure-tracking.ts";

/** How long after a scripted move its flag, directive or override must show in the read API. */
const WITHIN_MS = 20_000;
const TICK_MS = 500;

interface Entry {
  entryId: number;
  sourceAgentId: string;
  sourceTier: "queen" | "scout" | "worker";
  targetTokenId: number;
  actionType: string;
  actionPayload: Record<string, any> | null;
  reasonCode: string;
  blockNumber: number;
  timestamp: number;
  txHash: Hex;
}

interface Token {
  symbol: string;
  token: Address;
  pool: Address;
  nftId: bigint;
  workerId: bigint;
  side: number;
}

let runDir: string;
let chain: Chain;
let viem: Viem;
let closeViem: () => Promise<void>;
let ponder: Ponder;
let agents: AgentsHandle;
let client: PublicClient;
let contracts: Record<string, Address>;
let tokens: Token[];
let startedAt: number;
/** Entries the seed recorded; the runtime's come after. */
let seedEntries: number;
/** `test`: `it` that notes a failure in `run.failed`, so the logs of the run are printed at the end. */
const { test, run } = failureTracking();

beforeAll(async () => {
  runDir = await makeRunDir("agents");
  chain = await startChain(runDir);
  const deployed = await deployAndSeed(chain, runDir);
  viem = deployed.viem;
  closeViem = deployed.close;
  contracts = deployed.deployment.contracts as Record<string, Address>;
  tokens = deployed.summary!.tokens as Token[];
  client = createPublicClient({ transport: http(chain.url) }) as PublicClient;
  ponder = await startPonder({
    name: "agents",
    runDir,
    chain,
    deploymentFile: deployed.deploymentFile,
    backend: { kind: "pglite" },
  });
  startedAt = Number((await client.getBlock()).timestamp);
  seedEntries = Number(
    await client.readContract({
      address: contracts.ActionLog,
      abi: [
        { type: "function", name: "entryCount", stateMutability: "view", inputs: [], outputs: [{ type: "uint256" }] },
      ],
      functionName: "entryCount",
    }),
  );
  agents = await startAgents({
    rpcUrl: chain.url,
    chainId: 31337,
    rpcTimeoutMs: 10_000,
    deploymentsRoot: runDir,
    tickMs: TICK_MS,
    scoutKeys: [],
    privateRelayUrl: chain.url,
    batchWindowTicks: 3,
    dataDir: join(runDir, "agents"),
    schema: "agents",
    dbTimeoutMs: 10_000,
    receiptTimeoutMs: 20_000,
    pollMs: 50,
    fundLocally: true,
    log: (message, error) => console.error(message, error ?? ""),
  });
}, 300_000);

afterAll(async () => {
  if (run.failed) printLogs([chain?.service, ponder?.service]);
  await agents?.close();
  await ponder?.stop();
  await closeViem?.();
  await chain?.stop();
  await stopAll();
  if (runDir) await removeRunDir(runDir);
});

/** Every action-log entry matching `query`, oldest first. */
async function entries(query: string): Promise<Entry[]> {
  const out: Entry[] = [];
  for (let page = 1; ; page++) {
    const { status, body } = await httpGet<{ items: Entry[]; totalItems: number }>(
      ponder.url,
      `/api/agents/action-logs?${query}&pageSize=100&page=${page}`,
    );
    assert.equal(status, 200);
    out.push(...body.items);
    if (out.length >= body.totalItems || body.items.length === 0) break;
  }
  return out.sort((a, b) => a.entryId - b.entryId);
}

/** Waits until an entry matching `query` and `match` shows in the read API. */
function entryShows(what: string, query: string, match: (e: Entry) => boolean, timeoutMs = WITHIN_MS): Promise<Entry> {
  return waitFor(what, async () => (await entries(query)).find(match), {
    timeoutMs,
    intervalMs: 250,
    alive: [ponder.service],
  });
}

const bySymbol = (symbol: string) => tokens.find((t) => t.symbol === symbol)!;

async function wallet(index: number) {
  return (await viem.getWalletClients())[index]!;
}

async function send(hash: Hex): Promise<TransactionReceipt> {
  const receipt = await client.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, "success");
  return receipt;
}

/** A user's swap in `t`'s pool without any guard: the scripted market moves. */
async function swap(user: number, t: Token, isBuy: boolean, amountIn: bigint): Promise<TransactionReceipt> {
  const w = await wallet(user);
  const pairAsset = (await client.readContract({
    address: t.pool,
    abi: AgentPoolAbi,
    functionName: "pairAsset",
  })) as Address;
  return send(
    await w.writeContract({
      address: t.pool,
      abi: AgentPoolAbi,
      functionName: "swapExactIn",
      args: [isBuy ? pairAsset : t.token, amountIn, 0n, w.account.address],
    }),
  );
}

async function reservesAt(pool: Address, block: bigint): Promise<PoolReserves> {
  const [[reserveToken, reservePair, virtualPair], feePips] = await Promise.all([
    client.readContract({ address: pool, abi: AgentPoolAbi, functionName: "getReserves", blockNumber: block }),
    client.readContract({ address: pool, abi: AgentPoolAbi, functionName: "feePips" }),
  ]);
  return { reserveToken, reservePair, virtualPair, feePips: BigInt(feePips) };
}

describe("agent runtime", () => {
  test("unattended, workers trade in their pools within their caps and the swarm's activity moves", async () => {
    const trades = await waitFor(
      "three worker trades in the action log",
      async () => {
        const found = (await entries(`sourceTier=worker&since=${startedAt}`)).filter((e) => e.actionPayload?.swapTx);
        return found.length >= 3 && found;
      },
      { timeoutMs: 60_000, intervalMs: 500, alive: [ponder.service] },
    );
    for (const entry of trades) {
      assert.ok(["trade", "rebalance"].includes(entry.actionType), entry.actionType);
      const t = tokens.find((x) => BigInt(entry.targetTokenId) === x.nftId)!;
      const receipt = await client.getTransactionReceipt({ hash: entry.actionPayload!.swapTx });
      const swapLog = receipt.logs
        .filter((l) => l.address.toLowerCase() === t.pool.toLowerCase())
        .map((l) => decodeEventLog({ abi: AgentPoolAbi, data: l.data, topics: l.topics }))
        .find((e) => e.eventName === "Swap");
      assert.ok(swapLog, `a Swap in ${t.symbol}'s pool`);
      const args = swapLog.args as { isBuy: boolean; amountIn: bigint; amountOut: bigint };
      assert.equal(args.amountIn.toString(), entry.actionPayload!.amountIn);
      const worker = await client.readContract({
        address: contracts.AgentRegistry,
        abi: AgentRegistryAbi,
        functionName: "getWorker",
        args: [t.workerId],
      });
      const before = await reservesAt(t.pool, receipt.blockNumber - 1n);
      assert.ok(
        impactBps(before, args.isBuy, args.amountIn, args.amountOut) <= BigInt(worker.config.slippageCapBps),
        `${t.symbol}: the impact stays within the cap of ${worker.config.slippageCapBps} bps`,
      );
    }
    // Idle (DELTA) and suspended (OMEGA) workers never act.
    const idle = [bySymbol("DELTA").nftId, bySymbol("OMEGA").nftId];
    const all = await entries(`sourceTier=worker&since=${startedAt}`);
    assert.equal(all.filter((e) => idle.includes(BigInt(e.targetTokenId))).length, 0);
    const overview = await httpGet<{ swarm: { lastActivityAt: number } }>(ponder.url, "/api/agents/overview");
    assert.ok(overview.body.swarm.lastActivityAt >= startedAt, "swarm.lastActivityAt moved");
  });

  test("a config changed on the chain governs the worker's next trades", async () => {
    const gamma = bySymbol("GAMMA");
    const admin = await wallet(0); // holds CONFIG_ROLE locally, as WorkerVoting does
    const receipt = await send(
      await admin.writeContract({
        address: contracts.AgentRegistry,
        abi: AgentRegistryAbi,
        functionName: "setWorkerConfig",
        args: [gamma.workerId, { slippageCapBps: 60, mevProtection: 0, signalSubscriptions: ["price"] }],
      }),
    );
    const trade = await entryShows(
      "a GAMMA trade decided after the change",
      `tokenId=${gamma.nftId}&sourceTier=worker`,
      (e) => Number(e.actionPayload?.observedBlock ?? 0) >= Number(receipt.blockNumber) && !!e.actionPayload?.swapTx,
    );
    assert.equal(trade.actionPayload?.slippageCapBps, 60);
    assert.equal(trade.actionPayload?.mevProtection, "off");
  });

  test("a worker whose approvals were revoked approves again and goes on trading", async () => {
    const gamma = bySymbol("GAMMA");
    const operator = await wallet(2);
    // Outside the runtime, the operator's key revokes both of GAMMA's pool approvals.
    let revokedAt = 0n;
    for (const asset of [contracts.MockStableToken!, gamma.token]) {
      const receipt = await send(
        await operator.writeContract({ address: asset, abi: erc20, functionName: "approve", args: [gamma.pool, 0n] }),
      );
      revokedAt = receipt.blockNumber;
    }
    const trade = await entryShows(
      "a GAMMA trade after the revocation",
      `tokenId=${gamma.nftId}&sourceTier=worker`,
      (e) => BigInt(e.blockNumber) > revokedAt && !!e.actionPayload?.swapTx,
    );
    assert.ok(trade);
    const allowances = await Promise.all(
      [contracts.MockStableToken!, gamma.token].map((asset) =>
        client.readContract({
          address: asset,
          abi: erc20,
          functionName: "allowance",
          args: [operator.account.address, gamma.pool],
        }),
      ),
    );
    assert.ok(
      allowances.every((a) => a > 0n),
      "both approvals were given again",
    );
  });

  test("a large buy is flagged as a price move by a scout and the queen pauses that worker, who then holds", async () => {
    const gamma = bySymbol("GAMMA");
    const buy = await swap(4, gamma, true, parseUnits("3000", 6));
    const flag = await entryShows(
      "a price flag naming the buy",
      `tokenId=${gamma.nftId}&actionType=flag`,
      (e) =>
        (e.actionPayload?.evidence?.txHashes ?? []).includes(buy.transactionHash) &&
        e.actionPayload?.signal === "price",
    );
    assert.equal(flag.sourceTier, "scout");
    assert.equal(flag.reasonCode, "PRICE_MOVE");
    const directive = await entryShows(
      "the queen's pause",
      `tokenId=${gamma.nftId}&actionType=directive`,
      (e) => e.actionPayload?.cause === String(flag.entryId),
    );
    assert.equal(directive.sourceTier, "queen");
    assert.equal(directive.reasonCode, "PRICE_SHOCK");
    assert.equal(directive.actionPayload?.instruction, "pause_trading");
    // A few ticks later: no GAMMA worker trade decided on a block that included the pause.
    await sleep(6 * TICK_MS);
    const during = (await entries(`tokenId=${gamma.nftId}&sourceTier=worker`)).filter(
      (e) => Number(e.actionPayload?.observedBlock ?? 0) >= directive.blockNumber,
    );
    assert.deepEqual(during, []);
  });

  test("a new spawn is flagged, the queen widens its band, and its worker joins without a restart", async () => {
    const owner = await wallet(9);
    const fee = (await client.readContract({
      address: contracts.AgentSpawner,
      abi: AgentSpawnerAbi,
      functionName: "spawnFee",
    })) as bigint;
    const receipt = await send(
      await owner.writeContract({
        address: contracts.AgentSpawner,
        abi: AgentSpawnerAbi,
        functionName: "spawn",
        args: ["Zeta Newcomer", "ZETA", 0n, 0, { description: "", logoUri: "", website: "" }],
        value: fee,
      }),
    );
    const spawned = receipt.logs
      .map((l) => {
        try {
          return decodeEventLog({ abi: AgentSpawnerAbi, data: l.data, topics: l.topics });
        } catch {
          return undefined;
        }
      })
      .find((e) => e?.eventName === "AgentSpawned")!;
    const nftId = (spawned.args as { nftId: bigint }).nftId;
    const flag = await entryShows(
      "a spawn flag",
      `tokenId=${nftId}&actionType=flag`,
      (e) => e.reasonCode === "NEW_SPAWN",
    );
    assert.equal(flag.sourceTier, "scout");
    assert.deepEqual(flag.actionPayload?.evidence?.txHashes, [receipt.transactionHash]);
    const directive = await entryShows(
      "the launch watch",
      `tokenId=${nftId}&actionType=directive`,
      (e) => e.actionPayload?.cause === String(flag.entryId),
    );
    assert.equal(directive.reasonCode, "LAUNCH_WATCH");
    const trade = await entryShows(
      "the new worker's first trade",
      `tokenId=${nftId}&sourceTier=worker`,
      (e) => !!e.actionPayload?.swapTx,
    );
    assert.ok(["trade", "rebalance"].includes(trade.actionType));
  });

  test("a volume spike is flagged and the queen widens the band", async () => {
    const beta = bySymbol("BETA");
    // A baseline: an hour's ordinary trading is what the spike is measured against.
    await swap(5, beta, true, parseEther("0.01"));
    const testClient = await viem.getTestClient();
    await testClient.increaseTime({ seconds: 400 });
    await testClient.mine({ blocks: 1 });
    const burst: Hex[] = [];
    for (let i = 0; i < 3; i++)
      burst.push(
        (await swap(5 + (i % 2), beta, i % 2 === 0, i % 2 === 0 ? parseEther("0.3") : parseEther("5000000")))
          .transactionHash,
      );
    const flag = await entryShows(
      "a volume flag",
      `tokenId=${beta.nftId}&actionType=flag`,
      (e) => e.reasonCode === "VOLUME_SPIKE",
    );
    assert.equal(flag.sourceTier, "scout");
    assert.ok(burst.some((h) => flag.actionPayload?.evidence?.txHashes.includes(h)));
    const directive = await entryShows(
      "the queen's wider band",
      `tokenId=${beta.nftId}&actionType=directive`,
      (e) => e.actionPayload?.cause === String(flag.entryId),
    );
    assert.equal(directive.reasonCode, "VOLUME_SURGE");
    assert.equal(directive.actionPayload?.instruction, "widen_band");
  });

  test("a worker trade beyond its cap is flagged and overridden by the queen, and the read API counts it", async () => {
    const gamma = bySymbol("GAMMA");
    const before = await httpGet<{ ecosystem: { totalOverrides24h: number } }>(ponder.url, "/api/agents/overview");
    // The worker operator's key trades outside the runtime, with no guard: a rogue trade.
    const operator = await wallet(2);
    const stable = contracts.MockStableToken;
    await send(
      await operator.writeContract({
        address: stable,
        abi: erc20,
        functionName: "approve",
        args: [gamma.pool, maxUint256],
      }),
    );
    const rogue = await swap(2, gamma, true, parseUnits("2000", 6));
    const flag = await entryShows(
      "a slippage flag",
      `tokenId=${gamma.nftId}&actionType=flag`,
      (e) => e.reasonCode === "SLIPPAGE_BREACH" && e.actionPayload?.evidence?.txHashes?.includes(rogue.transactionHash),
    );
    const override = await entryShows(
      "the queen's override",
      `tokenId=${gamma.nftId}&actionType=override`,
      (e) => e.actionPayload?.cause === String(flag.entryId),
    );
    assert.equal(override.sourceTier, "queen");
    assert.equal(override.reasonCode, "CAP_BREACH");
    const after = await waitFor(
      "the override counted in the overview",
      async () => {
        const o = await httpGet<{ ecosystem: { totalOverrides24h: number } }>(ponder.url, "/api/agents/overview");
        return o.body.ecosystem.totalOverrides24h > before.body.ecosystem.totalOverrides24h && o.body;
      },
      { timeoutMs: WITHIN_MS },
    );
    assert.ok(after.ecosystem.totalOverrides24h >= before.body.ecosystem.totalOverrides24h + 1);
    const worker = await httpGet<{ stats: { lastOverrideAt: number; overridingTier: string } }>(
      ponder.url,
      `/api/agents/workers/${gamma.nftId}`,
    );
    assert.equal(worker.body.stats.overridingTier, "queen");
    // The queen may override the worker again meanwhile (a later flag): the newest one counts.
    const overrides = await entries(`tokenId=${gamma.nftId}&actionType=override`);
    assert.ok(worker.body.stats.lastOverrideAt >= override.timestamp);
    assert.ok(
      overrides.some((e) => e.timestamp === worker.body.stats.lastOverrideAt),
      "lastOverrideAt is an override's",
    );
  });

  // Issue 24, finding 2: the override used to change nothing; the worker went on trading.
  test("the queen's override suspends the worker: the API shows it suspended, it makes no trade until she resumes it, then trades again", async () => {
    const gamma = bySymbol("GAMMA");
    const queenOverrides = async () =>
      (await entries(`tokenId=${gamma.nftId}&actionType=override`)).filter((e) => e.sourceTier === "queen");
    const override = (await queenOverrides()).at(-1)!;
    assert.ok(override, "the cap breach of the test before was overridden");
    // On the chain: suspended by the queen, in the override's own transaction, for the cool-off she stated.
    const receipt = await client.getTransactionReceipt({ hash: override.txHash });
    const suspended = receipt.logs
      .filter((l) => l.address.toLowerCase() === contracts.AgentRegistry!.toLowerCase())
      .map((l) => decodeEventLog({ abi: AgentRegistryAbi, data: l.data, topics: l.topics }))
      .find((e) => e.eventName === "WorkerSuspended");
    assert.ok(suspended, "WorkerSuspended in the override's transaction");
    assert.deepEqual(
      [(suspended.args as { workerId: bigint }).workerId, (suspended.args as { until: bigint }).until],
      [gamma.workerId, BigInt(override.timestamp + DEFAULT_QUEEN_PARAMS.overrideCoolOffSec)],
    );

    // The read API shows it suspended, in the detail and under the status filter.
    await waitFor(
      "GAMMA's worker suspended in the read API",
      async () =>
        (await httpGet<{ worker: { status: string } }>(ponder.url, `/api/agents/workers/${gamma.nftId}`)).body.worker
          .status === "suspended",
      { timeoutMs: WITHIN_MS, intervalMs: 250, alive: [ponder.service] },
    );
    const listed = await httpGet<{ items: { agentNftId: number }[] }>(
      ponder.url,
      "/api/agents/workers?status=suspended&pageSize=100",
    );
    assert.ok(listed.body.items.some((w) => BigInt(w.agentNftId) === gamma.nftId));
    const shownAt = await client.getBlockNumber();

    // A reason to trade (a buy lifts the price), several ticks: the worker makes no trade.
    await swap(7, gamma, true, parseUnits("300", 6));
    await sleep(8 * TICK_MS);
    const workerOperator = (await wallet(2)).account.address.toLowerCase();
    const operatorSwaps = async (fromBlock: bigint, toBlock?: bigint) =>
      (
        await client.getContractEvents({
          address: gamma.pool,
          abi: AgentPoolAbi,
          eventName: "Swap",
          fromBlock,
          toBlock,
        })
      ).filter((e) => e.args.sender!.toLowerCase() === workerOperator);
    assert.deepEqual(await operatorSwaps(shownAt + 1n), [], "no swap by the worker while suspended");

    // Past her rest (and any pause), the queen lifts her override; until then nothing traded.
    const testClient = await viem.getTestClient();
    await testClient.increaseTime({ seconds: DEFAULT_QUEEN_PARAMS.restSec + 130 });
    await testClient.mine({ blocks: 1 });
    const resume = await entryShows(
      "the queen's resume",
      `tokenId=${gamma.nftId}&actionType=resume`,
      (e) => e.reasonCode === "OVERRIDE_LIFTED" && e.blockNumber > override.blockNumber,
    );
    assert.equal(resume.sourceTier, "queen");
    const lifted = (await queenOverrides()).filter((e) => e.blockNumber < resume.blockNumber).at(-1)!;
    assert.equal(resume.actionPayload?.cause, String(lifted.entryId), "she lifts her newest override");
    const during = (await entries(`tokenId=${gamma.nftId}&sourceTier=worker`)).filter(
      (e) => e.blockNumber > override.blockNumber && e.blockNumber < resume.blockNumber,
    );
    assert.deepEqual(during, [], "no worker entry between the override and the resume");
    assert.deepEqual(await operatorSwaps(shownAt + 1n, BigInt(resume.blockNumber)), []);
    await waitFor(
      "GAMMA's worker active again in the read API",
      async () =>
        (await httpGet<{ worker: { status: string } }>(ponder.url, `/api/agents/workers/${gamma.nftId}`)).body.worker
          .status === "active",
      { timeoutMs: WITHIN_MS, intervalMs: 250, alive: [ponder.service] },
    );

    // Resumed, it answers the market again.
    await swap(7, gamma, true, parseUnits("500", 6));
    const trade = await entryShows(
      "a GAMMA trade after the resume",
      `tokenId=${gamma.nftId}&sourceTier=worker`,
      (e) => e.blockNumber > resume.blockNumber && !!e.actionPayload?.swapTx,
      60_000,
    );
    assert.ok(["trade", "rebalance"].includes(trade.actionType));
  });

  test("every entry the runtime recorded names its intent, and no intent was recorded twice", async () => {
    const recorded = (await entries(`since=${startedAt}`)).filter((e) => e.entryId > seedEntries);
    assert.ok(recorded.length > 10);
    assert.deepEqual(
      recorded.filter((e) => typeof e.actionPayload?.intent !== "string").map((e) => e.entryId),
      [],
      "every entry names its intent",
    );
    const ids = recorded.map((e) => e.actionPayload!.intent as string);
    assert.equal(new Set(ids).size, ids.length);
  });
});

const erc20 = [
  {
    type: "function",
    name: "allowance",
    stateMutability: "view",
    inputs: [
      { name: "owner", type: "address" },
      { name: "spender", type: "address" },
    ],
    outputs: [{ type: "uint256" }],
  },
  {
    type: "function",
    name: "approve",
    stateMutability: "nonpayable",
    inputs: [
      { name: "spender", type: "address" },
      { name: "amount", type: "uint256" },
    ],
    outputs: [{ type: "bool" }],
  },
] as const;
