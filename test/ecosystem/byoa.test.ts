/**
 * Issue 28, bring your own agent, end to end: a seeded chain, the exchange, Ponder (the API with
 * its relayer) and the reference runtime. A token's owner hands its worker to an agent of its own
 * through the signed write; that agent records under the worker and the read API shows it there;
 * the runtime leaves the worker alone meanwhile and takes it up again once it is handed back; a
 * stranger is refused.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type Address,
  createPublicClient,
  type Hex,
  http,
  erc20Abi,
  keccak256,
  parseEther,
  type PublicClient,
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe } from "vitest";
import { exchangeEnv, parseEnv } from "../../config/env.ts";
import { seedDemoBeforeLoad } from "../../exchange/demo/reference-data.ts";
import { type RunningExchange, startExchange } from "../../exchange/server/start.ts";
import { type AgentsHandle, startAgents } from "../../agents/runtime/index.ts";
import { connectAgent, requestWorkerOperator, type SignedWriteContext } from "../../agents/sdk/index.ts";
import { AgentPoolAbi, AgentRegistryAbi } from "../../indexer/abis.ts";
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
  waitIndexed,
} from "../../support/ecosystem/harness.ts";
import { waitFor } from "../../support/wait.ts";
import { failureTracking } from "../../support/ecosystem/failure-tracking.ts";
import { writesReady, writeStamp } from "../../support/ecosystem/writes.ts";
import { type Credentials, SigningClient } from "../../support/exchange/signing-client.ts";
import { stdioServer } from "../../support/mcp/stdio.ts";

const SERVICE_SECRET = "service-secret-for-e2e-byoa";
const ADMIN_TOKEN = "admin-token-for-e2e-byoa";
const WITHIN_MS = 30_000;

interface Entry {
  entryId: number;
  sourceAgentId: string;
  sourceTier: string;
  targetTokenId: number;
  actionType: string;
  actionPayload: Record<string, any> | null;
  reasonCode: string;
  blockNumber: number;
  txHash: Hex;
}

let runDir: string;
let chain: Chain;
let viem: Viem;
let closeViem: () => Promise<void>;
let client: PublicClient;
let contracts: Record<string, Address>;
let alpha: { token: Address; pool: Address; nftId: bigint; workerId: bigint };
let runtimeOperator: Address;
let exchange: RunningExchange;
let ponder: Ponder;
let agents: AgentsHandle;
let owner: Credentials;
let stranger: Credentials;
const { test, run } = failureTracking();
const mcpClients: Client[] = [];

const keyOf = (label: string): Hex => keccak256(toHex(`byoa-e2e ${label}`));
const ownerKey = keyOf("owner");
const ownAgentKey = keyOf("own agent");
const ownAgent = privateKeyToAccount(ownAgentKey).address;

beforeAll(async () => {
  runDir = await makeRunDir("byoa");
  chain = await startChain(runDir);
  const deployed = await deployAndSeed(chain, runDir);
  viem = deployed.viem;
  closeViem = deployed.close;
  contracts = deployed.deployment.contracts as Record<string, Address>;
  runtimeOperator = deployed.deployment.accounts.workerOperator as Address;
  alpha = deployed.summary!.tokens.find((t) => t.symbol === "ALPHA")!;
  client = createPublicClient({ transport: http(chain.url) }) as PublicClient;

  // The owner is a fresh account: the seed's creator hands it the agent NFT, so the one that
  // decides is the NFT's current holder, and no demo user of the exchange shares its address.
  const ownerAddress = privateKeyToAccount(ownerKey).address;
  const creator = await client.readContract({
    address: contracts.AgentRegistry,
    abi: AgentRegistryAbi,
    functionName: "ownerOf",
    args: [alpha.nftId],
  });
  const creatorWallet = (await viem.getWalletClients()).find(
    (w) => w.account.address.toLowerCase() === creator.toLowerCase(),
  )!;
  await mined(
    await creatorWallet.writeContract({
      address: contracts.AgentRegistry,
      abi: AgentRegistryAbi,
      functionName: "transferFrom",
      args: [creator, ownerAddress, alpha.nftId],
    }),
  );
  const test = await viem.getTestClient();
  await test.setBalance({ address: ownAgent, value: parseEther("10") });

  exchange = await startExchange(
    parseEnv(exchangeEnv, {
      EXCHANGE_PORT: "0",
      EXCHANGE_DATA_DIR: join(runDir, "exchange", "data"),
      EXCHANGE_SERVER_KEY: "33".repeat(32),
      EXCHANGE_ADMIN_TOKEN: ADMIN_TOKEN,
      EXCHANGE_SERVICE_SECRET: SERVICE_SECRET,
      RATE_LIMIT_PER_MINUTE: "100000",
      SIGNED_RATE_LIMIT_PER_MINUTE: "100000",
    }),
    { log: () => {}, beforeLoad: seedDemoBeforeLoad },
  );
  ponder = await startPonder({
    name: "byoa",
    runDir,
    chain,
    deploymentFile: deployed.deploymentFile,
    backend: { kind: "pglite" },
    env: { EXCHANGE_URL: exchange.url, EXCHANGE_SERVICE_SECRET: SERVICE_SECRET, RELAYER_DB_SCHEMA: "relayer_byoa" },
  });
  await waitIndexed(ponder, await chain.blockNumber(), 120_000);
  const admin = new SigningClient(exchange.url, ADMIN_TOKEN);
  owner = await admin.user(1, {}, ownerAddress.toLowerCase());
  stranger = await admin.user(30, {}, privateKeyToAccount(keyOf("stranger")).address.toLowerCase());
  await writesReady(new SigningClient(ponder.url, ADMIN_TOKEN), stranger);

  agents = await startAgents({
    rpcUrl: chain.url,
    chainId: 31337,
    rpcTimeoutMs: 10_000,
    deploymentsRoot: runDir,
    tickMs: 500,
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
  await Promise.all(mcpClients.map((c) => c.close().catch(() => {})));
  if (run.failed) printLogs([chain?.service, ponder?.service]);
  await agents?.close();
  await ponder?.stop();
  await exchange?.close();
  await closeViem?.();
  await chain?.stop();
  await stopAll();
  if (runDir) await removeRunDir(runDir);
});

async function mined(hash: Hex) {
  const receipt = await client.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, "success");
  return receipt;
}

/** The SDK's signed write, signed with `who`'s key, stamped as the other e2e writes are. */
const handTo = (who: Credentials, operator: Address, tokenRef: string = alpha.token) => {
  const ctx: SignedWriteContext = { baseUrl: ponder.url, ...who, now: () => writeStamp(who) };
  return requestWorkerOperator(ctx, tokenRef, operator);
};

/** The MCP server over stdio (`node mcp/main.ts`), as an agent's configuration starts it, with `env`'s keys. */
async function mcp(env: Record<string, string>) {
  const client = new Client({ name: "byoa-mcp", version: "0" });
  mcpClients.push(client);
  await client.connect(stdioServer({ ECOSYSTEM_API_URL: ponder.url, EXCHANGE_URL: exchange.url, ...env }));
  return async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 30_000 })) as CallToolResult;
    assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result.content)}`);
    return result.structuredContent as Record<string, any>;
  };
}

async function entries(query: string): Promise<Entry[]> {
  const { status, body } = await httpGet<{ items: Entry[] }>(
    ponder.url,
    `/api/agents/action-logs?${query}&pageSize=100`,
  );
  assert.equal(status, 200);
  return body.items;
}

/** Worker trades the runtime made in a pool from `fromBlock` on (its swaps, whatever the log says). */
async function runtimeSwaps(pool: Address, fromBlock: bigint) {
  const logs = await client.getContractEvents({ address: pool, abi: AgentPoolAbi, eventName: "Swap", fromBlock });
  const senders = await Promise.all(logs.map((l) => client.getTransaction({ hash: l.transactionHash! })));
  return senders.filter((tx) => tx.from.toLowerCase() === runtimeOperator.toLowerCase());
}

/**
 * The demo's ALPHA holder (account 4) sells a 25th of the pool's tokens: the price falls about 8%,
 * below the worker's band (3%) but not far enough for the queen to pause it (10%), which the runtime's worker buys back with the pair asset it always has (it mints
 * mUSD on a local chain), so it has a trade to make for ALPHA whenever ALPHA's worker is its own.
 */
async function pushAlphaPrice() {
  const holder = (await viem.getWalletClients())[4]!;
  const [reserveToken] = await client.readContract({
    address: alpha.pool,
    abi: AgentPoolAbi,
    functionName: "getReserves",
  });
  const held = await client.readContract({
    address: alpha.token,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [holder.account.address],
  });
  const amountIn = reserveToken / 25n < held ? reserveToken / 25n : held;
  assert.ok(amountIn > 0n, "account 4 holds ALPHA to sell");
  await mined(
    await holder.writeContract({
      address: alpha.token,
      abi: erc20Abi,
      functionName: "approve",
      args: [alpha.pool, amountIn],
    }),
  );
  await mined(
    await holder.writeContract({
      address: alpha.pool,
      abi: AgentPoolAbi,
      functionName: "swapExactIn",
      args: [alpha.token, amountIn, 0n, holder.account.address],
    }),
  );
}

/** The runtime's worker trades on other tokens after `block`: proof that it is ticking. */
function runtimeTradesElsewhere(block: number, count: number) {
  return waitFor(
    `${count} runtime worker trades on other tokens`,
    async () => {
      const found = (await entries("sourceTier=worker")).filter(
        (e) => e.blockNumber > block && BigInt(e.targetTokenId) !== alpha.nftId && e.actionPayload?.swapTx,
      );
      return found.length >= count && found;
    },
    { timeoutMs: 60_000, intervalMs: 500, alive: [ponder.service] },
  );
}

describe("bring your own agent", () => {
  let handedAt: bigint;

  test("a stranger's hand-over is refused with 403 NOT_TOKEN_OWNER and changes nothing", async () => {
    const answer = await handTo(stranger, ownAgent);
    assert.deepEqual([answer.status, answer.ok ? undefined : answer.code], [403, "NOT_TOKEN_OWNER"]);
    const worker = await client.readContract({
      address: contracts.AgentRegistry,
      abi: AgentRegistryAbi,
      functionName: "getWorker",
      args: [alpha.workerId],
    });
    assert.equal(worker.operator.toLowerCase(), runtimeOperator.toLowerCase());
  });

  test("the owner hands the worker to its agent through the signed write", async () => {
    const answer = await handTo(owner, ownAgent);
    assert.ok(answer.ok, JSON.stringify(answer));
    assert.equal(answer.status, 201);
    assert.deepEqual(
      {
        worker: answer.body.worker,
        previousOperator: answer.body.previousOperator,
        operator: answer.body.operator,
      },
      {
        worker: {
          id: Number(alpha.workerId),
          agentNftId: Number(alpha.nftId),
          tokenAddress: alpha.token.toLowerCase(),
        },
        previousOperator: runtimeOperator.toLowerCase(),
        operator: ownAgent.toLowerCase(),
      },
    );
    handedAt = (await client.getTransactionReceipt({ hash: answer.body.txHash as Hex })).blockNumber;
  });

  test("the agent records on the chain and the action log shows it under the worker", async () => {
    const agent = await connectAgent({ rpcUrl: chain.url, privateKey: ownAgentKey, deploymentsRoot: runDir });
    assert.deepEqual((await agent.role()).workerIds, [alpha.workerId]);
    const recorded = await agent.record({
      targetNftId: alpha.nftId,
      actionType: "rebalance",
      payload: { note: "my own agent" },
      reasonCode: "OWN_AGENT",
    });
    const entry = await waitFor(
      "the own agent's entry in the action log",
      async () => (await entries(`tokenId=${alpha.nftId}&sourceTier=worker`)).find((e) => e.txHash === recorded.txHash),
      { timeoutMs: WITHIN_MS, intervalMs: 250, alive: [ponder.service] },
    );
    assert.deepEqual(
      [entry.entryId, entry.sourceTier, entry.sourceAgentId, entry.reasonCode, entry.actionPayload],
      [Number(recorded.entryId), "worker", `worker:${alpha.workerId}`, "OWN_AGENT", { note: "my own agent" }],
    );
  });

  test("the same agent over MCP (record_action with its own key): the log shows it under the worker", async () => {
    const call = await mcp({ AGENT_PRIVATE_KEY: ownAgentKey, RPC_URL: chain.url, DEPLOYMENTS_ROOT: runDir });
    const recorded = await call("record_action", {
      tokenId: alpha.token,
      actionType: "rebalance",
      payload: { note: "my own agent, over MCP" },
      reasonCode: "OWN_AGENT",
    });
    const entry = await waitFor(
      "the MCP agent's entry in the action log",
      async () => (await entries(`tokenId=${alpha.nftId}&sourceTier=worker`)).find((e) => e.txHash === recorded.txHash),
      { timeoutMs: WITHIN_MS, intervalMs: 250, alive: [ponder.service] },
    );
    assert.deepEqual(
      [String(entry.entryId), entry.sourceAgentId, entry.actionPayload],
      [recorded.entryId, `worker:${alpha.workerId}`, { note: "my own agent, over MCP" }],
    );
  });

  test("the runtime leaves the handed-over worker alone while it trades for the others", async () => {
    // A price far below the band: the runtime would buy it back at once if the worker were its.
    await pushAlphaPrice();
    const head = await client.getBlockNumber();
    await runtimeTradesElsewhere(Number(head), 3);
    assert.deepEqual(await runtimeSwaps(alpha.pool, handedAt + 1n), []);
    const recordedByRuntime = (await entries(`tokenId=${alpha.nftId}&sourceTier=worker`)).filter(
      (e) => BigInt(e.blockNumber) > handedAt && e.reasonCode !== "OWN_AGENT",
    );
    assert.deepEqual(recordedByRuntime, []);
  });

  test("handed back over MCP (set_worker_operator), the runtime trades for the worker again; the agent may not record", async () => {
    const call = await mcp({ API_PUBLIC_KEY: owner.publicKey, API_PRIVATE_KEY: owner.privateKey });
    const answer = await call("set_worker_operator", { tokenId: String(alpha.nftId), operator: runtimeOperator });
    assert.equal(answer.operator, runtimeOperator.toLowerCase());
    const back = (await client.getTransactionReceipt({ hash: answer.txHash as Hex })).blockNumber;
    await waitFor(
      "a runtime worker trade on ALPHA after the hand-back",
      async () => {
        const swaps = await runtimeSwaps(alpha.pool, back + 1n);
        const logged = (await entries(`tokenId=${alpha.nftId}&sourceTier=worker`)).filter(
          (e) => BigInt(e.blockNumber) > back && e.actionPayload?.swapTx,
        );
        return swaps.length > 0 && logged.length > 0;
      },
      { timeoutMs: 120_000, intervalMs: 500, alive: [ponder.service] },
    );
    const agent = await connectAgent({ rpcUrl: chain.url, privateKey: ownAgentKey, deploymentsRoot: runDir });
    await assert.rejects(
      agent.record({ targetNftId: alpha.nftId, actionType: "rebalance", payload: {}, reasonCode: "OWN_AGENT" }),
      /UnauthorizedAgent/,
    );
  });
});
