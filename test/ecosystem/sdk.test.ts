/**
 * The agent SDK against a seeded chain: roles, worker configs, records, swaps within a cap, the
 * action subscription, and the README's ten-line agent (agents/sdk/example.ts), run as a process.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Address, createPublicClient, type Hex, http, parseUnits, type PublicClient } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe } from "vitest";
import { type Agent, connectAgent, SlippageCapExceeded } from "../../agents/sdk/index.ts";
import {
  type Chain,
  deployAndSeed,
  makeRunDir,
  printLogs,
  removeRunDir,
  ROOT,
  startChain,
  stopAll,
} from "../../support/ecosystem/harness.ts";
import { waitFor } from "../../support/wait.ts";
import { failureTracking } from "../../support/ecosystem/failure-tracking.ts";

const MNEMONIC = "test test test test test test test test test test test junk";
/** Hardhat's account keys: 2 operates the workers, 10 the queen, 11 a scout, 4 a trader. */
const keyOf = (index: number): Hex => {
  const key = mnemonicToAccount(MNEMONIC, { addressIndex: index }).getHdKey().privateKey!;
  return `0x${Buffer.from(key).toString("hex")}`;
};

let runDir: string;
let chain: Chain;
let closeViem: () => Promise<void>;
let client: PublicClient;
let tokens: { symbol: string; token: Address; pool: Address; nftId: bigint; workerId: bigint }[];
let contracts: Record<string, Address>;
let example: ChildProcess | undefined;
/** `test`: `it` that notes a failure in `run.failed`, so the logs of the run are printed at the end. */
const { test, run } = failureTracking();

const connect = (index: number) =>
  connectAgent({ rpcUrl: chain.url, privateKey: keyOf(index), deploymentsRoot: runDir });

beforeAll(async () => {
  runDir = await makeRunDir("sdk");
  chain = await startChain(runDir);
  const deployed = await deployAndSeed(chain, runDir);
  closeViem = deployed.close;
  tokens = deployed.summary!.tokens;
  contracts = deployed.deployment.contracts as Record<string, Address>;
  client = createPublicClient({ transport: http(chain.url) }) as PublicClient;
}, 300_000);

afterAll(async () => {
  if (run.failed) printLogs([chain?.service]);
  example?.kill("SIGKILL");
  await closeViem?.();
  await chain?.stop();
  await stopAll();
  if (runDir) await removeRunDir(runDir);
});

describe("agent SDK", () => {
  test("reads each key's role and a worker's config", async () => {
    const [queen, scout, workers, trader] = await Promise.all([connect(10), connect(11), connect(2), connect(4)]);
    assert.deepEqual(await queen.role(), { tier: "queen", nftId: 1n, workerIds: [] });
    assert.equal((await scout.role()).tier, "scout");
    const workerRole = await workers.role();
    assert.equal(workerRole.tier, "worker");
    assert.deepEqual(
      workerRole.workerIds,
      tokens.map((t) => t.workerId),
    );
    assert.deepEqual(await trader.role(), { tier: "none", workerIds: [] });
    const alpha = tokens.find((t) => t.symbol === "ALPHA")!;
    // The seed's executed proposal set ALPHA's worker to 0.5% and batch auctions.
    assert.deepEqual(await workers.workerConfig(alpha.workerId), {
      status: "active",
      agentNftId: alpha.nftId,
      token: alpha.token,
      slippageCapBps: 50,
      mevProtection: "batch_auction",
      signalSubscriptions: ["price", "volume"],
    });
  });

  test("records an action and sees it through the subscription", async () => {
    const scout = await connect(11);
    const seen: bigint[] = [];
    const stop = scout.onAction((a) => void seen.push(a.entryId), { targetNftId: tokens[0]!.nftId });
    const { entryId, txHash } = await scout.record({
      targetNftId: tokens[0]!.nftId,
      actionType: "flag",
      payload: { signal: "sdk_test" },
      reasonCode: "SDK_TEST",
    });
    assert.equal((await client.getTransactionReceipt({ hash: txHash })).status, "success");
    await waitFor("the subscription to deliver the record", async () => seen.includes(entryId), { timeoutMs: 10_000 });
    stop();
  });

  test("swaps within the cap, and refuses a quote beyond it without sending", async () => {
    const trader: Agent = await connect(4);
    const gamma = tokens.find((t) => t.symbol === "GAMMA")!;
    const stable = contracts.MockStableToken;
    const { amountOut, minAmountOut } = await trader.swap({
      pool: gamma.pool,
      tokenIn: stable,
      amountIn: parseUnits("5", 6),
      slippageCapBps: 100,
    });
    assert.ok(amountOut >= minAmountOut && minAmountOut > 0n);
    const nonce = await client.getTransactionCount({ address: trader.address });
    await assert.rejects(
      trader.swap({ pool: gamma.pool, tokenIn: stable, amountIn: parseUnits("3000", 6), slippageCapBps: 100 }),
      (error) => error instanceof SlippageCapExceeded && error.impactBps > 100n,
    );
    assert.equal(await client.getTransactionCount({ address: trader.address }), nonce, "nothing was sent");
  });

  test("the README's ten-line agent runs as written and flags a worker trade", async () => {
    const code = await readFile(join(ROOT, "agents/sdk/example.ts"), "utf8");
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    const body = code.split("\n").slice(1).join("\n").replace('"./index.ts"', '"./agents/sdk/index.ts"').trim();
    assert.ok(readme.includes(body), "the README shows agents/sdk/example.ts as it is");
    let output = "";
    example = spawn(process.execPath, [join(ROOT, "agents/sdk/example.ts")], {
      cwd: runDir, // its deployments/31337.json
      env: { ...process.env, RPC_URL: chain.url, AGENT_KEY: keyOf(12) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    example.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    example.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await waitFor("the example to start", async () => output.includes("acting as"), { timeoutMs: 30_000 });
    assert.match(output, /tier: 'scout'/);
    const workers = await connect(2);
    const beta = tokens.find((t) => t.symbol === "BETA")!;
    const trade = await workers.record({
      targetNftId: beta.nftId,
      actionType: "trade",
      payload: { side: "buy" },
      reasonCode: "SDK_TEST",
    });
    const match = await waitFor(
      "the example's flag",
      async () => output.match(new RegExp(`flagged entry ${trade.entryId} as entry (\\d+)`)) ?? undefined,
      { timeoutMs: 20_000 },
    );
    const flagId = BigInt(match[1]!);
    assert.ok(flagId > trade.entryId);
    const logs = await client.getContractEvents({
      address: contracts.ActionLog,
      abi: (await import("../../indexer/abis.ts")).ActionLogAbi,
      eventName: "ActionRecorded",
      args: { entryId: flagId },
      fromBlock: 0n,
    });
    assert.equal(logs.length, 1);
    assert.equal(logs[0]!.args.actionType, "flag");
    assert.equal(logs[0]!.args.sourceTier, 2); // scout
  });
});
