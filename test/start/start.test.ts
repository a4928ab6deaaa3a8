/**
 * `npm start` as a new user runs it: the "Platform running" banner may appear only once every
 * service answers with the seeded state. The first answers after the banner are compared with the
 * chain itself, so a banner printed while the indexer is still catching up fails here.
 * Then, in the same run, each service is SIGKILLed in turn (as an out-of-memory kill would): the
 * others keep answering, the killed one answers again after its restart, the output says what
 * happened, and SIGTERM stops everything.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, test } from "vitest";
import WebSocket from "ws";
import { createPublicClient, http, parseAbi } from "viem";
import { readDeployment } from "../../lib/deployments.ts";
import { indexedBlock } from "../../lib/ponder-status.ts";
import { type Credentials, SigningClient } from "../../support/exchange/signing-client.ts";
import { BANNER, type Platform, type PlatformUrls, startPlatform } from "../../support/platform.ts";
import { waitFor } from "../../support/wait.ts";
import { setTimeout as sleep } from "node:timers/promises";

const ACTION_LOG_ABI = parseAbi([
  "event ActionRecorded(uint256 indexed entryId, uint256 indexed targetTokenId, uint8 indexed sourceTier, uint256 sourceAgentId, address operator, string actionType, bytes payload, string reasonCode, bool isOverride)",
]);
const REGISTRY_ABI = parseAbi([
  "function workerCount() view returns (uint256)",
  "function workerAuth(uint256 workerId) view returns (address operator, uint8 status)",
]);
const WORKER_ACTIVE = 0; // IAgentRegistry.WorkerStatus.Active

let platform: Platform;
let urls: PlatformUrls;
let dataDir = "";
let bannerAt = 0;
/** Everything `npm start` printed (stdout and stderr) so far. */
const output = () => platform.output();

beforeAll(async () => {
  platform = await startPlatform();
  ({ urls, dataDir, bannerAt } = platform);
});

afterAll(() => platform?.stop());

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

test("the chain's clock is the wall clock: the seeded history lies days back, its open proposals are open", async () => {
  const chain = createPublicClient({ transport: http(urls.chain, { timeout: 5_000 }) });
  const head = Number((await chain.getBlock()).timestamp);
  const now = Date.now() / 1000;
  assert.ok(Math.abs(head - now) < 120, `chain time ${head} vs wall clock ${now}`);
  const tokens = await getJson<{ items: { symbol: string; address: string; spawnedAt: number }[] }>(
    `${urls.api}/api/launchpad/tokens?pageSize=100`,
  );
  const seeded = tokens.items.filter((t) => ["ALPHA", "BETA", "GAMMA", "DELTA", "OMEGA"].includes(t.symbol));
  assert.equal(seeded.length, 5);
  for (const t of seeded) assert.ok(now - t.spawnedAt > 5 * 86_400, `${t.symbol} spawned ${now - t.spawnedAt} s ago`);
  const overview = await getJson<{ ecosystem: { tokensSpawnedLast24h: number; tokensSpawnedLast7d: number } }>(
    `${urls.api}/api/agents/overview`,
  );
  assert.equal(overview.ecosystem.tokensSpawnedLast7d - overview.ecosystem.tokensSpawnedLast24h, 5);
  // The README's voting: GAMMA's and a second ALPHA proposal are open for votes.
  for (const symbol of ["ALPHA", "GAMMA"]) {
    const address = seeded.find((t) => t.symbol === symbol)!.address;
    const open = await getJson<{ totalItems: number }>(
      `${urls.api}/api/agents/workers/${address}/proposals?status=open`,
    );
    assert.equal(open.totalItems, 1, `${symbol} has one open proposal`);
  }
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
    await sleep(5_000);
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

test("the web app answers first in the banner: its page on every app route, its configuration, CORS from the APIs", async () => {
  const banner = output().slice(output().indexOf(BANNER)).split("\n");
  assert.match(banner[1]!, new RegExp(`^\\s+web app\\s+${urls.web}$`), "the web app's URL is the banner's first line");
  const page = await readFile(join("web", "dist", "index.html"), "utf8");
  const tokens = await getJson<{ items: { symbol: string; address: string }[] }>(`${urls.api}/api/launchpad/tokens`);
  const alpha = tokens.items.find((t) => t.symbol === "ALPHA")!.address;
  for (const path of ["/", `/tokens/${alpha}`, "/market/ETH_USDT", "/agents/actions"]) {
    const response = await fetch(`${urls.web}${path}`, { signal: AbortSignal.timeout(5_000) });
    assert.equal(response.status, 200, path);
    assert.equal(await response.text(), page, `${path} is the built app's index.html`);
    assert.match(response.headers.get("Content-Security-Policy")!, new RegExp(`connect-src [^;]*${urls.api}`));
  }
  const { contracts } = await readDeployment(31337);
  assert.deepEqual(await getJson(`${urls.web}/config.json`), {
    ecosystemApiUrl: urls.api,
    exchangeApiUrl: urls.exchange,
    exchangeWsUrl: `${urls.exchange.replace("http", "ws")}/ws`,
    rpcUrl: urls.chain,
    chainId: 31337,
    contracts,
  });
  const missing = await fetch(`${urls.web}/assets/index-missing.js`, { signal: AbortSignal.timeout(5_000) });
  assert.equal(missing.status, 404);
  for (const url of [`${urls.api}/api/launchpad/tokens`, `${urls.exchange}/api/tickers?currencyPairCode=ETH_USDT`]) {
    const response = await fetch(url, { headers: { Origin: urls.web }, signal: AbortSignal.timeout(5_000) });
    assert.equal(response.headers.get("Access-Control-Allow-Origin"), urls.web, `${url} lets the web app read it`);
  }
});

test("the exchange answers with the demo market and the bot's quotes", async () => {
  const levels = await getJson<{ isBid: boolean }[]>(`${urls.exchange}/api/orderbook?currencyPairCode=ETH_USDT`);
  assert.ok(levels.some((level) => level.isBid) && levels.some((level) => !level.isBid));
});

test("the demo market's agent tokens are listings of the seed's spawns, held by the demo users and quoted by the bot", async () => {
  const seeded = ["ALPHA", "BETA", "GAMMA", "DELTA", "OMEGA"];
  const pairs = async () =>
    (await getJson<{ code?: string; currencyPairCode?: string }[]>(`${urls.exchange}/api/currencies/pairs`)).map(
      (pair) => pair.currencyPairCode ?? pair.code,
    );
  await waitFor("the seed's tokens listed", async () => (await pairs()).includes("OMEGA_USDT"), {
    timeoutMs: 30_000,
    intervalMs: 500,
  });
  const codes = await pairs();
  for (const symbol of seeded) assert.ok(codes.includes(`${symbol}_USDT`), `${symbol}_USDT in ${codes}`);
  assert.ok(!codes.includes("GAMMA_ETH"), "no fixed agent-token pair");
  const asset = await getJson<Record<string, { can_deposit: boolean; can_withdraw: boolean }>>(
    `${urls.exchange}/api/marketdata/getaggregator/asset`,
  );
  assert.equal(asset.ALPHA?.can_deposit, true, "ALPHA is the chain's token, deposits watched");

  const credentials = JSON.parse(await readFile(join(dataDir, "demo-credentials.json"), "utf8")) as (Credentials & {
    label: string;
  })[];
  const trader = credentials.find((c) => c.label === "trader-1")!;
  const exchange = new SigningClient(urls.exchange, "", { timeoutMs: 30_000 });
  await waitFor(
    "trader-1's deposit in every listed token",
    async () => {
      const balances = (await exchange.signed(trader, "GET", "/api/balances")).body as {
        currencyCode: string;
        available: unknown;
      }[];
      return seeded.every((symbol) => balances.some((b) => b.currencyCode === symbol && Number(b.available) > 0));
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  );
  await waitFor(
    "the bot's quotes on both sides of ALPHA_USDT",
    async () => {
      const levels = await getJson<{ isBid: boolean }[]>(`${urls.exchange}/api/orderbook?currencyPairCode=ALPHA_USDT`);
      return levels.some((level) => level.isBid) && levels.some((level) => !level.isBid);
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  );
});

test("a demo user's USDT withdrawal goes out from the seeded hot wallet", async () => {
  const credentials = JSON.parse(await readFile(join(dataDir, "demo-credentials.json"), "utf8")) as (Credentials & {
    label: string;
  })[];
  const trader = credentials.find((c) => c.label === "trader-2")!;
  const exchange = new SigningClient(urls.exchange, "", { timeoutMs: 30_000 });
  const recipient = `0x${Date.now().toString(16).padStart(40, "0")}` as `0x${string}`;
  const created = await exchange.signed(trader, "POST", "/api/withdrawals", {
    currencyCode: "USDT",
    amount: "10",
    address: recipient,
  });
  assert.equal(created.status, 201, created.text);
  const { contracts } = await readDeployment(31337);
  const chain = createPublicClient({ transport: http(urls.chain) });
  await waitFor(
    "the withdrawal's 9 USDT (10 less the 1 USDT fee) at the recipient",
    async () =>
      (await chain.readContract({
        address: contracts.MockStableToken,
        abi: parseAbi(["function balanceOf(address) view returns (uint256)"]),
        functionName: "balanceOf",
        args: [recipient],
      })) === 9_000_000n,
    { timeoutMs: 60_000, intervalMs: 500 },
  );
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
  while (!(has("@trade") && has("@depth")) && Date.now() < deadline) await sleep(200);
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
  const ecosystem = new SigningClient(urls.api, "", { timeoutMs: 30_000 });
  const post = (label: string, path: string, body: object) =>
    ecosystem.signed(as(label), "POST", path, body, { timestamp: Date.now() });
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
    await sleep(250);
  }
  const noTokens = await post("voter-no-tokens", `/api/agents/workers/${alpha}/vote`, { proposalId, vote: "no" });
  assert.deepEqual([noTokens.status, noTokens.body.code], [403, "NO_HOLDINGS"]);
  const newcomer = await post("newcomer", `/api/agents/workers/${alpha}/vote`, { proposalId, vote: "no" });
  assert.deepEqual([newcomer.status, newcomer.body.code], [403, "LEVEL_TOO_LOW"]);
});

describe("a service killed by SIGKILL, as an out-of-memory kill would, while the platform runs", () => {
  interface Status {
    state: string;
    pid: number | null;
    restarts: number;
  }
  /** `npm start` writes each service's state and pid to .data/logs/status.json (README, "Commands"). */
  const status = async () =>
    (JSON.parse(await readFile(join(".data", "logs", "status.json"), "utf8")) as { services: Record<string, Status> })
      .services;
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const answers = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
    return response?.status ?? 0;
  };
  const chainAnswers = async () =>
    answers(urls.chain, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
    });
  /** Unlimited health routes, so the probes spend none of the per-IP quotas. */
  const probes: Record<string, () => Promise<boolean>> = {
    chain: async () => (await chainAnswers()) === 200,
    exchange: async () => (await answers(`${urls.exchange}/api/healthcheck`)) === 200,
    indexer: async () => (await answers(`${urls.api}/health`)) === 200,
    web: async () => (await answers(`${urls.web}/`)) === 200,
  };
  /** Polls `check`; reads that count against a per-IP quota (60 a minute) poll every second. */
  const waitUntil = (what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 250) =>
    waitFor(what, async () => (await check()) || undefined, {
      timeoutMs,
      intervalMs,
      context: () => `npm start said:\n${output().slice(-3000)}`,
    });
  const botQuotesBothSides = async () => {
    const levels = await getJson<{ isBid: boolean; price: number }[]>(
      `${urls.exchange}/api/orderbook?currencyPairCode=ETH_USDT`,
    );
    return levels.some((l) => l.isBid && l.price !== 1000) && levels.some((l) => !l.isBid);
  };
  /**
   * SIGKILLs `name`, checks that every other service still answers (the HTTP ones) or still runs
   * as the same process (agents, bot) while it is away, and waits for the supervisor's lines
   * saying it was restarted and is ready again.
   */
  async function killAndWatch(name: string, readyWithinMs: number): Promise<{ before: Status; after: Status }> {
    const before = (await status())[name]!;
    const others = Object.entries(await status()).filter(([other, s]) => other !== name && s.state === "running");
    process.kill(before.pid!, "SIGKILL");
    await waitUntil(
      `"${name} exited unexpectedly (SIGKILL)"`,
      () => output().includes(`${name} exited unexpectedly (SIGKILL)`),
      10_000,
    );
    for (const [other, s] of others) {
      if (probes[other]) assert.ok(await probes[other](), `${other} answers while ${name} is down`);
      assert.ok(alive(s.pid!), `${other} (pid ${s.pid}) still runs while ${name} is down`);
    }
    await waitUntil(
      `"${name} ready again"`,
      () => new RegExp(`${name} ready again \\(pid \\d+\\)`).test(output()),
      readyWithinMs,
    );
    const after = (await status())[name]!;
    assert.equal(after.state, "running");
    assert.equal(after.restarts, before.restarts + 1);
    assert.notEqual(after.pid, before.pid);
    assert.match(output(), new RegExp(`${name} restarted \\(pid ${after.pid}\\)`));
    for (const [other, s] of others) {
      const now = (await status())[other]!;
      assert.deepEqual([now.pid, now.restarts], [s.pid, s.restarts], `${other} was not restarted`);
    }
    return { before, after };
  }
  const credential = async (label: string) =>
    (
      JSON.parse(await readFile(join(dataDir, "demo-credentials.json"), "utf8")) as {
        label: string;
        publicKey: string;
        privateKey: string;
      }[]
    ).find((c) => c.label === label)!;
  // Built per call: the platform's URLs are known only once beforeAll has started it.
  const signedExchange = async (label: string, method: string, path: string, body = "") =>
    new SigningClient(urls.exchange, "", { timeoutMs: 10_000 }).signed(
      await credential(label),
      method,
      path,
      body || undefined,
      { timestamp: Date.now() },
    );
  const hasBid = async (price: number) =>
    (
      await getJson<{ isBid: boolean; price: number }[]>(`${urls.exchange}/api/orderbook?currencyPairCode=ETH_USDT`)
    ).some((level) => level.isBid && level.price === price);

  test("the exchange: the others keep serving; it comes back with its books rebuilt from its store", async () => {
    // A bid far below the bot's ladder, so nothing fills it: it must be on the book after the restart.
    const placed = await signedExchange(
      "trader-1",
      "POST",
      "/api/orders",
      JSON.stringify({ isBid: true, currencyPairCode: "ETH_USDT", amount: "0.01", price: "1000.00" }),
    );
    assert.equal(placed.status, 201, JSON.stringify(placed.body));
    assert.ok(await hasBid(1000));
    await killAndWatch("exchange", 60_000);
    assert.match(output(), /exchange exited unexpectedly \(SIGKILL\) after \d+(\.\d)? (s|min); restarting in 500 ms/);
    const order = await signedExchange("trader-1", "GET", `/api/orders/${placed.body.id}`);
    assert.deepEqual([order.status, order.body.status, order.body.remainingAmount], [200, "open", 0.01]);
    assert.ok(await hasBid(1000), "the rebuilt book holds the order placed before the kill");
    // The bot, not restarted, trades on the new process by itself.
    await waitUntil("the bot's quotes on both sides again", botQuotesBothSides, 30_000, 1000);
  });

  test("the ecosystem API (indexer and relayer): the others keep serving; it resumes its index and its writes", async () => {
    const chain = createPublicClient({ transport: http(urls.chain, { timeout: 5_000 }) });
    const headAtKill = await chain.getBlockNumber();
    // Ponder waits for the killed process's lock of its schema to expire (25 s), then recovers.
    await killAndWatch("indexer", 120_000);
    await waitUntil(
      `the index to pass block ${headAtKill}, the head when it was killed`,
      async () => BigInt(await indexedBlock(urls.api)) >= headAtKill,
      60_000,
    );
    const overview = await getJson<{ hive: { totalWorkers: number } }>(`${urls.api}/api/agents/overview`);
    assert.ok(overview.hive.totalWorkers > 0);
    await waitUntil(
      "the signed writes to answer 401 (not 503) to an unsigned request",
      async () => (await answers(`${urls.api}/api/launchpad/spawn`, { method: "POST" })) === 401,
      30_000,
      1000,
    );
  });

  test("the agents: the others keep serving; they resume from their journal and act again", async () => {
    const chain = createPublicClient({ transport: http(urls.chain, { timeout: 5_000 }) });
    const { contracts } = await readDeployment(31337);
    await killAndWatch("agents", 60_000);
    const restartedAt = await chain.getBlockNumber();
    await waitUntil(
      "an agent action recorded after the restart",
      async () =>
        (
          await chain.getContractEvents({
            address: contracts.ActionLog,
            abi: ACTION_LOG_ABI,
            eventName: "ActionRecorded",
            fromBlock: restartedAt + 1n,
          })
        ).some((log) => Buffer.from(log.args.payload!.slice(2), "hex").toString("utf8").includes('"intent"')),
      60_000,
    );
  });

  test("the bot: the others keep serving; it quotes again", async () => {
    await killAndWatch("bot", 60_000);
    assert.ok(await hasBid(1000), "the restarted bot cancels only its own leftovers");
    await waitUntil("the bot's quotes on both sides of ETH_USDT", botQuotesBothSides, 30_000, 1000);
  });

  test("the web app: the others keep serving; it serves the page and its configuration again", async () => {
    await killAndWatch("web", 30_000);
    assert.equal(await answers(`${urls.web}/tokens/0x0000000000000000000000000000000000000001`), 200);
    assert.equal(await answers(`${urls.web}/config.json`), 200);
  });

  test("the chain is not restarted (its state was in its memory): it says so, and the others keep serving", async () => {
    const before = await status();
    process.kill(before.chain!.pid!, "SIGKILL");
    await waitUntil(
      "the chain's exit reported",
      () => /chain exited unexpectedly \(SIGKILL\).*not restarted/.test(output()),
      10_000,
    );
    // Long enough for a service that cannot live without the chain to crash and be restarted.
    await sleep(15_000);
    const after = await status();
    assert.deepEqual([after.chain!.state, after.chain!.pid], ["down", null]);
    assert.equal(await chainAnswers(), 0, "nothing answers at the chain's port");
    for (const name of ["exchange", "indexer", "agents", "bot", "web"]) {
      assert.deepEqual(
        [after[name]!.state, after[name]!.pid, after[name]!.restarts],
        ["running", before[name]!.pid, before[name]!.restarts],
        `${name} keeps running as the same process`,
      );
      assert.ok(alive(after[name]!.pid!));
    }
    assert.ok(await hasBid(1000), "the exchange keeps serving");
    const tokens = await getJson<{ items: unknown[] }>(`${urls.api}/api/launchpad/tokens`);
    assert.ok(tokens.items.length > 0, "the ecosystem API keeps serving what it indexed");
  });

  test("only SIGTERM (or Ctrl-C) stops everything, and nothing is left running", async () => {
    const before = await status();
    const exited = new Promise<number | null>((resolve) => platform.process.once("exit", resolve));
    process.kill(platform.process.pid!, "SIGTERM");
    assert.equal(await exited, 0);
    for (const [name, s] of Object.entries(before)) if (s.pid) assert.ok(!alive(s.pid), `${name} was stopped`);
    assert.ok(Object.values(await status()).every((s) => s.state === "stopped"));
    assert.doesNotMatch(output().slice(output().indexOf("SIGTERM: stopping")), /restart/);
  });
});
