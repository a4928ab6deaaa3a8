/**
 * `npm start` as a new user runs it: the "Platform running" banner may appear only once every
 * service answers with the seeded state. The first answers after the banner are compared with the
 * chain itself, so a banner printed while the indexer is still catching up fails here.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, test } from "vitest";
import WebSocket from "ws";
import { createPublicClient, http, parseAbi } from "viem";
import { signRequest } from "../../exchange/adapters/auth/index.ts";
import { readDeployment } from "../../lib/deployments.ts";
import { freePort } from "../support/net/free-port.ts";

const BANNER = "Platform running:";
const ACTION_LOG_ABI = parseAbi([
  "event ActionRecorded(uint256 indexed entryId, uint256 indexed targetTokenId, uint8 indexed sourceTier, uint256 sourceAgentId, address operator, string actionType, bytes payload, string reasonCode, bool isOverride)",
]);
const REGISTRY_ABI = parseAbi([
  "function workerCount() view returns (uint256)",
  "function workerAuth(uint256 workerId) view returns (address operator, uint8 status)",
]);
const WORKER_ACTIVE = 0; // IAgentRegistry.WorkerStatus.Active
const STARTUP_TIMEOUT_MS = 300_000;

let start: ChildProcess | undefined;
let dataDir = "";
let bannerAt = 0;
const urls = { chain: "", api: "", exchange: "" };

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "npm-start-"));
  const [chainPort, apiPort, exchangePort] = [await freePort(), await freePort(), await freePort()];
  urls.chain = `http://127.0.0.1:${chainPort}`;
  urls.api = `http://127.0.0.1:${apiPort}`;
  urls.exchange = `http://127.0.0.1:${exchangePort}`;
  const env = {
    ...process.env,
    CHAIN_PORT: String(chainPort),
    PORT: String(apiPort),
    EXCHANGE_PORT: String(exchangePort),
    PONDER_DATA_DIR: join(dataDir, "ponder"),
    EXCHANGE_DATA_DIR: join(dataDir, "exchange"),
    DEMO_CREDENTIALS: join(dataDir, "demo-credentials.json"),
    RELAYER_DATA_DIR: join(dataDir, "relayer"),
    AGENTS_DATA_DIR: join(dataDir, "agents"),
    DATABASE_URL: "",
  };
  start = spawn(process.execPath, ["scripts/start.ts"], { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no banner within ${STARTUP_TIMEOUT_MS} ms:\n${output}`)),
      STARTUP_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(BANNER)) {
        bannerAt = Math.floor(Date.now() / 1000);
        clearTimeout(timer);
        resolve();
      }
    };
    start?.stdout?.on("data", onData);
    start?.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    start?.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code} before its banner:\n${output}`));
    });
  });
});

afterAll(async () => {
  if (start?.pid && start.exitCode === null) {
    const exited = new Promise((resolve) => start?.once("exit", resolve));
    process.kill(start.pid, "SIGINT"); // start.ts stops everything it started on Ctrl-C
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 20_000))]);
    if (start.exitCode === null) process.kill(-start.pid, "SIGKILL");
  }
  await rm(dataDir, { recursive: true, force: true });
});

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  assert.equal(response.status, 200, `${url} answered ${response.status}`);
  return (await response.json()) as T;
}

interface Entry {
  entryId: number;
  sourceTier: string;
  timestamp: number;
  actionPayload: { intent?: string; swapTx?: string } | null;
}

/** Every action-log entry the read API has, newest first. */
async function allEntries(query = ""): Promise<Entry[]> {
  const out: Entry[] = [];
  for (let page = 1; ; page++) {
    const body = await getJson<{ items: Entry[]; totalItems: number }>(
      `${urls.api}/api/agents/action-logs?pageSize=100&page=${page}${query}`,
    );
    out.push(...body.items);
    if (body.items.length === 0 || out.length >= body.totalItems) return out;
  }
}

test("the first answers after the banner carry every seeded worker, action and boost", async () => {
  const { contracts } = await readDeployment(31337);
  const chain = createPublicClient({ transport: http(urls.chain, { timeout: 5_000 }) });
  const registry = { address: contracts.AgentRegistry, abi: REGISTRY_ABI } as const;
  // The agents keep recording: the seed's actions are those without an intent in their payload.
  const [recorded, workers] = await Promise.all([
    chain.getContractEvents({
      address: contracts.ActionLog,
      abi: ACTION_LOG_ABI,
      eventName: "ActionRecorded",
      fromBlock: 0n,
    }),
    chain.readContract({ ...registry, functionName: "workerCount" }),
  ]);
  const seeded = recorded
    .filter((log) => !Buffer.from(log.args.payload!.slice(2), "hex").toString("utf8").includes('"intent"'))
    .map((log) => Number(log.args.entryId));
  const statuses = await Promise.all(
    Array.from({ length: Number(workers) }, (_, i) =>
      chain.readContract({ ...registry, functionName: "workerAuth", args: [BigInt(i + 1)] }),
    ),
  );
  const activeOnChain = statuses.filter(([, status]) => status === WORKER_ACTIVE).length;

  // Read up to a fixed time: the agents' new entries would shift the pages while they are read.
  const head = await chain.getBlock();
  const [indexed, overview, boosted] = await Promise.all([
    allEntries(`&until=${head.timestamp - 1n}`),
    getJson<{ hive: { totalWorkers: number }; swarm: { activeWorkers: number; lastActivityAt: number | null } }>(
      `${urls.api}/api/agents/overview`,
    ),
    getJson<{ totalItems: number }>(`${urls.api}/api/launchpad/tokens?boosted=true`),
  ]);
  assert.ok(seeded.length > 0, "the seed recorded actions");
  const indexedIds = new Set(indexed.map((e) => e.entryId));
  assert.deepEqual(
    seeded.filter((id) => !indexedIds.has(id)),
    [],
    "every action the seed recorded is indexed",
  );
  assert.equal(overview.hive.totalWorkers, Number(workers));
  assert.ok(activeOnChain < Number(workers), "the seed idles or suspends some workers");
  assert.equal(overview.swarm.activeWorkers, activeOnChain, "the swarm counts the workers active on the chain");
  assert.notEqual(overview.swarm.lastActivityAt, null);
  assert.ok(boosted.totalItems > 0, "the seed's boosts are indexed");
});

test("unattended, within a minute of the banner, workers trade and scouts and the queen act", async () => {
  // The runtime's entries name their intent (the seed's do not); newest first, one page per tier.
  const runtimeEntries = async (tier: string) =>
    (
      await getJson<{ items: Entry[] }>(`${urls.api}/api/agents/action-logs?sourceTier=${tier}&pageSize=100`)
    ).items.filter((e) => typeof e.actionPayload?.intent === "string");
  const found = new Map<string, Entry[]>();
  const deadline = bannerAt * 1000 + 60_000;
  for (;;) {
    for (const tier of ["worker", "scout", "queen"])
      if (!found.has(tier)) {
        const entries = await runtimeEntries(tier);
        if (entries.length > 0) found.set(tier, entries);
      }
    if (found.size === 3 || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 5_000));
  }
  assert.deepEqual([...found.keys()].sort(), ["queen", "scout", "worker"], "new actions from every tier");
  const workerEntries = found.get("worker")!;
  const trade = workerEntries.find((e) => e.actionPayload?.swapTx)!;
  const chain = createPublicClient({ transport: http(urls.chain, { timeout: 5_000 }) });
  const receipt = await chain.getTransactionReceipt({ hash: trade.actionPayload!.swapTx as `0x${string}` });
  assert.equal(receipt.status, "success", "the worker's trade is a swap on the chain");
  const overview = await getJson<{ swarm: { lastActivityAt: number } }>(`${urls.api}/api/agents/overview`);
  assert.ok(
    overview.swarm.lastActivityAt >= Math.max(...workerEntries.map((e) => e.timestamp)),
    "swarm.lastActivityAt moved",
  );
});

test("the exchange answers with the demo market and the bot's quotes", async () => {
  const levels = await getJson<{ isBid: boolean }[]>(`${urls.exchange}/api/orderbook?currencyPairCode=ETH_USDT`);
  assert.ok(levels.some((level) => level.isBid) && levels.some((level) => !level.isBid));
});

test("the README's WebSocket example: live ETH_USDT trades and book diffs of the demo market", async () => {
  const ws = new WebSocket(`${urls.exchange.replace(/^http/, "ws")}/ws`);
  const events: { stream: string; data: { U?: number; u?: number } }[] = [];
  const acks: unknown[] = [];
  ws.on("message", (raw) => {
    const body = JSON.parse(raw.toString());
    ("stream" in body ? events : acks).push(body);
  });
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  ws.send(JSON.stringify({ method: "SUBSCRIBE", params: ["ETH_USDT@trade", "ETH_USDT@depth"], id: 1 }));
  const deadline = Date.now() + 30_000;
  const has = (suffix: string) => events.some((e) => e.stream === `ETH_USDT${suffix}`);
  while (!(has("@trade") && has("@depth")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  ws.close();
  assert.deepEqual(acks[0], { result: null, id: 1 });
  assert.ok(has("@depth"), "book diffs arrive as the bot re-quotes");
  assert.ok(has("@trade"), "trades arrive as the bot's taker crosses");
  const diffs = events.filter((e) => e.stream === "ETH_USDT@depth").map((e) => e.data);
  for (let i = 1; i < diffs.length; i++) assert.equal(diffs[i]!.U, diffs[i - 1]!.u! + 1, "no gap between diffs");
});

test("the README's signed writes: trader-1 votes on ALPHA's open proposal, trader-2 spawns, both show in the reads", async () => {
  const credentials = JSON.parse(await readFile(join(dataDir, "demo-credentials.json"), "utf8")) as {
    label: string;
    publicKey: string;
    privateKey: string;
    address: string | null;
  }[];
  const as = (label: string) => credentials.find((c) => c.label === label)!;
  const post = async (label: string, path: string, body: object) => {
    const url = `${urls.api}${path}`;
    const text = JSON.stringify(body);
    const headers = signRequest({ ...as(label), method: "POST", url, body: text, timestamp: Date.now() });
    const response = await fetch(url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: text,
      signal: AbortSignal.timeout(30_000),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const tokens = await getJson<{ items: { symbol: string; address: string }[] }>(
    `${urls.api}/api/launchpad/tokens?pageSize=100`,
  );
  const alpha = tokens.items.find((t) => t.symbol === "ALPHA")!.address;
  const open = await getJson<{ items: { proposalId: string }[] }>(
    `${urls.api}/api/agents/workers/${alpha}/proposals?status=open`,
  );
  const proposalId = open.items[0]!.proposalId;
  const vote = await post("trader-1", `/api/agents/workers/${alpha}/vote`, { proposalId, vote: "yes" });
  assert.equal(vote.status, 201, JSON.stringify(vote.body));
  assert.ok(vote.body.weight > 0);
  const spawn = await post("trader-2", "/api/launchpad/spawn", { name: "My Agent", symbol: "MINE" });
  assert.equal(spawn.status, 201, JSON.stringify(spawn.body));
  assert.equal(spawn.body.token.owner, as("trader-2").address);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const [proposal, token] = await Promise.all([
      getJson<{ voteCount: number; tally: unknown }>(`${urls.api}/api/agents/proposals/${proposalId}`),
      fetch(`${urls.api}/api/launchpad/tokens/${spawn.body.token.address}`, { signal: AbortSignal.timeout(5_000) }),
    ]);
    if (token.status === 200 && JSON.stringify(proposal.tally) === JSON.stringify(vote.body.currentTally)) break;
    assert.ok(Date.now() < deadline, "the vote and the spawn show in the reads within 20 s");
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const noTokens = await post("voter-no-tokens", `/api/agents/workers/${alpha}/vote`, { proposalId, vote: "no" });
  assert.deepEqual([noTokens.status, noTokens.body.code], [403, "NO_HOLDINGS"]);
  const newcomer = await post("newcomer", `/api/agents/workers/${alpha}/vote`, { proposalId, vote: "no" });
  assert.deepEqual([newcomer.status, newcomer.body.code], [403, "LEVEL_TOO_LOW"]);
});
