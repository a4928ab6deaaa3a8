import assert from "node:assert/strict";
import { afterAll, beforeAll, describe, it } from "vitest";
import { READ_ROUTES, createEcosystemApi } from "./index.ts";
import { createTestDatabase, type TestDatabase } from "../support/api/database.ts";
import {
  type ActionFixture,
  addressOf,
  insertActions,
  insertAgent,
  insertProposal,
  insertSwap,
  insertToken,
  setChainHead,
} from "../support/api/fixtures.ts";

/** The whole app on an in-memory database: routes, shapes, windows, errors, rate limit, OpenAPI. */

const NOW = 2_000_000_000;
const DAY = 86_400;
const E18 = 10n ** 18n;
const E6 = 10n ** 6n;

let database: TestDatabase;
let app: ReturnType<typeof createEcosystemApi>;

async function get(path: string) {
  const res = await app.request(path);
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

beforeAll(async () => {
  database = await createTestDatabase();
  const db = database.db;
  // ALPHA (stable, boosted, active), BETA (wrapped native, boost expired, idle), GAMMA (stable, new, suspended).
  await insertToken(db, {
    n: 1,
    symbol: "ALPHA",
    spawnedAt: NOW - 5 * DAY,
    reserves: { token: 700_000_000n * E18, pair: 1_000n * E6, virtualPair: 10_000n * E6 },
    holders: 10,
    boost: { tier: 2, expiresAt: NOW + 1_000 },
    totalActions: 27,
  });
  await insertToken(db, {
    n: 2,
    symbol: "BETA",
    side: "WRAPPED_NATIVE",
    spawnedAt: NOW - 2 * DAY,
    status: "idle",
    reserves: { token: 4n * E18, pair: E18, virtualPair: 5n * E18 },
    holders: 3,
    boost: { tier: 1, expiresAt: NOW - 10 },
    totalActions: 1,
  });
  await insertToken(db, { n: 3, symbol: "GAMMA", spawnedAt: NOW - 3_600, status: "suspended", totalActions: 1 });
  await insertAgent(db, 50, "queen", NOW - 6 * DAY);
  await insertAgent(db, 51, "scout", NOW - 6 * DAY);
  await insertAgent(db, 52, "scout", NOW - 6 * DAY);

  const actions: ActionFixture[] = [
    { entryId: 1, targetTokenId: 101n, sourceTier: "worker", actionType: "trade", timestamp: NOW - 3 * DAY },
    {
      entryId: 2,
      targetTokenId: 102n,
      sourceTier: "scout",
      sourceAgentId: 51n,
      actionType: "flag",
      timestamp: NOW - 2 * DAY,
    },
    {
      entryId: 3,
      targetTokenId: 101n,
      sourceTier: "queen",
      sourceAgentId: 50n,
      actionType: "override",
      timestamp: NOW - 3 * 3_600,
    },
    {
      entryId: 4,
      targetTokenId: 103n,
      sourceTier: "worker",
      sourceAgentId: 3n,
      actionType: "trade",
      timestamp: NOW - 2 * 3_600,
      payload: null,
    },
  ];
  for (let i = 0; i < 25; i++) {
    actions.push({
      entryId: 5 + i,
      targetTokenId: 101n,
      sourceTier: "worker",
      actionType: "trade",
      timestamp: NOW - 3_600 + i,
    });
  }
  await insertActions(db, actions);

  await insertSwap(db, {
    n: 1,
    tokenN: 1,
    isBuy: true,
    amountIn: 500n * E6,
    amountOut: 1_000n * E18,
    timestamp: NOW - 100,
    block: 90,
  });
  await insertSwap(db, {
    n: 2,
    tokenN: 1,
    isBuy: false,
    amountIn: 400n * E18,
    amountOut: 200n * E6,
    timestamp: NOW - 2 * DAY,
    block: 10,
  });
  await insertSwap(db, {
    n: 3,
    tokenN: 2,
    isBuy: true,
    amountIn: 2n * E18,
    amountOut: 3n * E18,
    timestamp: NOW - 50,
    block: 95,
  });
  await insertSwap(db, {
    n: 4,
    tokenN: 3,
    isBuy: false,
    amountIn: 7n * E18,
    amountOut: 100n * E6,
    timestamp: NOW - 10,
    block: 99,
    logIndex: 2,
  });
  await insertSwap(db, {
    n: 5,
    tokenN: 3,
    isBuy: true,
    amountIn: 1_500_000n,
    amountOut: E18 / 2n,
    timestamp: NOW - 10,
    block: 99,
    logIndex: 11,
  });

  await insertProposal(db, { id: 1, workerId: 1n, endTime: NOW + 1_000 });
  await insertProposal(db, { id: 2, workerId: 1n, endTime: NOW - DAY, executedAt: NOW - DAY + 60 });
  await insertProposal(db, { id: 3, workerId: 1n, endTime: NOW - 10 * DAY });
  await insertProposal(db, { id: 4, workerId: 2n, endTime: NOW + 5 });
  // Pending: proposed, voting opens in 100 s. Neither open for voting nor closed.
  await insertProposal(db, { id: 5, workerId: 1n, startTime: NOW + 100, endTime: NOW + 3 * DAY });
  await setChainHead(db, NOW - 5);

  app = createEcosystemApi({ db, now: () => NOW, rateLimitPerMinute: 10_000 });
});

afterAll(() => database.close());

describe("GET /api/agents/overview", () => {
  it("counts the hive, the swarm and the last 24 hours / 7 days", async () => {
    const { status, body } = await get("/api/agents/overview");
    assert.equal(status, 200);
    assert.deepEqual(body, {
      hive: { totalTokens: 3, totalWorkers: 3, totalQueens: 1, totalScouts: 2 },
      swarm: { activeWorkers: 1, lastActivityAt: NOW - 3_600 + 24 },
      ecosystem: {
        totalAgentTokensSpawned: 3,
        tokensSpawnedLast24h: 1,
        tokensSpawnedLast7d: 3,
        totalActions24h: 27,
        totalOverrides24h: 1,
      },
    });
  });

  it("measures windows from the chain head when the chain runs ahead of the wall clock", async () => {
    const behind = createEcosystemApi({ db: database.db, now: () => NOW - 30 * DAY, rateLimitPerMinute: 100 });
    await setChainHead(database.db, NOW);
    const body = (await (await behind.request("/api/agents/overview")).json()) as any;
    await setChainHead(database.db, NOW - 5);
    assert.equal(body.ecosystem.tokensSpawnedLast24h, 1);
    assert.equal(body.ecosystem.totalActions24h, 27);
  });
});

describe("GET /api/agents/workers", () => {
  it("lists workers by id with their token, config and 24h action count", async () => {
    const { body } = await get("/api/agents/workers");
    assert.equal(body.totalItems, 3);
    assert.deepEqual(
      body.items.map((w: any) => [w.workerId, w.tokenSymbol, w.status, w.actionCount24h]),
      [
        [1, "ALPHA", "active", 26],
        [2, "BETA", "idle", 0],
        [3, "GAMMA", "suspended", 1],
      ],
    );
    assert.deepEqual(body.items[0], {
      workerId: 1,
      agentNftId: 101,
      tokenAddress: addressOf(1),
      tokenSymbol: "ALPHA",
      status: "active",
      lastActiveAt: NOW - 5 * DAY,
      actionCount24h: 26,
      config: { slippageCapBps: 100, mevProtection: "off" },
    });
    assert.deepEqual([body.page, body.pageSize], [1, 20]);
  });

  it("filters by status and by token address in any case", async () => {
    assert.deepEqual(
      (await get("/api/agents/workers?status=idle")).body.items.map((w: any) => w.workerId),
      [2],
    );
    const upper = addressOf(3).toUpperCase().replace("0X", "0x");
    const { body } = await get(`/api/agents/workers?tokenAddress=${upper}`);
    assert.deepEqual([body.totalItems, body.items[0].workerId], [1, 3]);
  });

  it("pages, with an empty page past the end", async () => {
    const second = (await get("/api/agents/workers?page=2&pageSize=2")).body;
    assert.deepEqual([second.items.map((w: any) => w.workerId), second.totalItems], [[3], 3]);
    assert.deepEqual((await get("/api/agents/workers?page=9")).body.items, []);
  });

  it("refuses bad filters with 400 INVALID_PARAM naming them", async () => {
    for (const [query, param] of [
      ["status=bogus", "status"],
      ["tokenAddress=0x1234", "tokenAddress"],
      ["pageSize=101", "pageSize"],
      ["page=0", "page"],
    ]) {
      const { status, body } = await get(`/api/agents/workers?${query}`);
      assert.equal(status, 400, query);
      assert.equal(body.code, "INVALID_PARAM");
      assert.ok(body.message.startsWith(`${param}: `), body.message);
    }
  });
});

describe("GET /api/agents/workers/:tokenId", () => {
  it("shows the worker by token address or NFT id", async () => {
    const byAddress = (await get(`/api/agents/workers/${addressOf(1)}`)).body;
    const byNft = (await get("/api/agents/workers/101")).body;
    assert.deepEqual(byAddress, byNft);
    assert.deepEqual(byAddress.worker, {
      id: 1,
      agentNftId: 101,
      tokenAddress: addressOf(1),
      deployedAt: NOW - 5 * DAY,
      status: "active",
      suspendedUntil: null,
      lastActiveAt: NOW - 5 * DAY,
    });
    assert.deepEqual(byAddress.config, { slippageCapBps: 100, mevProtection: "off", signalSubscriptions: ["price"] });
    assert.deepEqual(byAddress.stats, { totalActions: 27, lastOverrideAt: null, overridingTier: null });
    // Proposals 1 (open), 2 (closed a day ago), 3 (closed 10 days ago), 5 (voting not yet open).
    assert.deepEqual(byAddress.votes, { activeProposals: 1, recentlyClosed: 1 });
  });

  it("shows the 20 newest actions, newest first", async () => {
    const { recentActions } = (await get("/api/agents/workers/101")).body;
    assert.equal(recentActions.length, 20);
    assert.deepEqual(recentActions[0], {
      txHash: `0x${(29).toString(16).padStart(64, "0")}`,
      actionType: "trade",
      params: { n: 29 },
      reasonCode: "TEST",
      blockNumber: 1029,
      blockTimestamp: NOW - 3_600 + 24,
    });
    assert.equal(recentActions.at(-1).blockNumber, 1010);
  });

  it("shows a payload that is not a JSON object as null", async () => {
    const { recentActions } = (await get("/api/agents/workers/103")).body;
    assert.equal(recentActions[0].params, null);
  });

  it("answers 404 for an unknown token and 400 for a malformed one", async () => {
    for (const ref of ["999", addressOf(77), "50"]) {
      const { status, body } = await get(`/api/agents/workers/${ref}`);
      assert.equal(status, 404, ref);
      assert.equal(body.code, "NOT_FOUND");
    }
    const { status, body } = await get("/api/agents/workers/ALPHA");
    assert.equal(status, 400);
    assert.match(body.message, /^tokenId: /);
  });
});

describe("GET /api/agents/action-logs", () => {
  it("lists entries newest first in the documented shape", async () => {
    const { body } = await get("/api/agents/action-logs?pageSize=2&page=14");
    assert.equal(body.totalItems, 29);
    assert.deepEqual(body.items, [
      {
        entryId: 3,
        sourceAgentId: "queen:50",
        sourceTier: "queen",
        targetTokenId: 101,
        actionType: "override",
        actionPayload: { n: 3 },
        reasonCode: "TEST",
        blockNumber: 1003,
        timestamp: NOW - 3 * 3_600,
        txHash: `0x${(3).toString(16).padStart(64, "0")}`,
      },
      {
        entryId: 2,
        sourceAgentId: "scout:51",
        sourceTier: "scout",
        targetTokenId: 102,
        actionType: "flag",
        actionPayload: { n: 2 },
        reasonCode: "TEST",
        blockNumber: 1002,
        timestamp: NOW - 2 * DAY,
        txHash: `0x${(2).toString(16).padStart(64, "0")}`,
      },
    ]);
  });

  it("filters by token, type, tier and time (inclusive)", async () => {
    const ids = async (query: string) =>
      (await get(`/api/agents/action-logs?${query}`)).body.items.map((e: any) => e.entryId);
    assert.deepEqual(await ids("tokenId=102"), [2]);
    assert.deepEqual(await ids("actionType=override"), [3]);
    assert.deepEqual(await ids("sourceTier=worker&tokenId=103"), [4]);
    assert.deepEqual(await ids(`since=${NOW - 3 * DAY}&until=${NOW - 2 * DAY}`), [2, 1]);
    assert.deepEqual(await ids(`since=${NOW - 3 * 3_600}&until=${NOW - 3 * 3_600}`), [3]);
    assert.deepEqual(await ids(`since=${NOW}`), []);
  });

  it("refuses since > until and other bad input", async () => {
    for (const [query, param] of [
      [`since=${NOW}&until=${NOW - 1}`, "since"],
      ["sourceTier=bogus", "sourceTier"],
      ["actionType=Bad-Type", "actionType"],
      ["tokenId=abc", "tokenId"],
      ["until=-1", "until"],
    ]) {
      const { status, body } = await get(`/api/agents/action-logs?${query}`);
      assert.equal(status, 400, query);
      assert.ok(body.message.startsWith(`${param}: `), body.message);
    }
  });
});

describe("GET /api/launchpad/tokens", () => {
  const symbols = async (query: string) =>
    (await get(`/api/launchpad/tokens?${query}`)).body.items.map((t: any) => t.symbol);

  it("lists the newest first with exact amounts", async () => {
    const { body } = await get("/api/launchpad/tokens");
    assert.deepEqual(
      body.items.map((t: any) => t.symbol),
      ["GAMMA", "BETA", "ALPHA"],
    );
    assert.deepEqual(body.items[2], {
      address: addressOf(1),
      symbol: "ALPHA",
      name: "ALPHA agent",
      spawnedAt: NOW - 5 * DAY,
      tvl: "1000",
      volume24h: "500",
      tvlStable: "1000",
      volume24hStable: "500",
      holders: 10,
      workerStatus: "active",
      boosted: true,
    });
    // BETA: 1 wrapped native really deposited and 2 traded, valued at the default 2,000 stable.
    assert.deepEqual(
      [
        body.items[1].tvl,
        body.items[1].volume24h,
        body.items[1].tvlStable,
        body.items[1].volume24hStable,
        body.items[1].boosted,
      ],
      ["1", "2", "2000", "4000", false],
    );
    // GAMMA: nobody deposited anything, so no TVL, whatever its virtual reserve.
    assert.deepEqual(
      [body.items[0].tvl, body.items[0].tvlStable, body.items[0].volume24h, body.items[0].holders],
      ["0", "0", "101.5", 0],
    );
  });

  it("ranks by volume and tvl by value in the stable token, and by holders", async () => {
    // Value: BETA's 1 (tvl) and 2 (volume) wrapped native are 2,000 and 4,000 stable, above
    // ALPHA's 1,000 and 500; GAMMA holds nothing real.
    assert.deepEqual(await symbols("sort=volume"), ["BETA", "ALPHA", "GAMMA"]);
    assert.deepEqual(await symbols("sort=tvl"), ["BETA", "ALPHA", "GAMMA"]);
    assert.deepEqual(await symbols("sort=holders"), ["ALPHA", "BETA", "GAMMA"]);
    assert.deepEqual(await symbols("sort=tvl&poolSide=STABLE"), ["ALPHA", "GAMMA"]);
  });

  it("filters by active boost and pool side", async () => {
    assert.deepEqual(await symbols("boosted=true"), ["ALPHA"]);
    assert.deepEqual(await symbols("boosted=false"), ["GAMMA", "BETA"]);
    assert.deepEqual(await symbols("poolSide=WRAPPED_NATIVE"), ["BETA"]);
    assert.equal((await get("/api/launchpad/tokens?boosted=false")).body.totalItems, 2);
  });

  it("refuses bad parameters", async () => {
    for (const [query, param] of [
      ["sort=name", "sort"],
      ["boosted=1", "boosted"],
      ["poolSide=stable", "poolSide"],
      ["pageSize=0", "pageSize"],
    ]) {
      const { status, body } = await get(`/api/launchpad/tokens?${query}`);
      assert.equal(status, 400, query);
      assert.ok(body.message.startsWith(`${param}: `), body.message);
    }
  });
});

describe("GET /api/launchpad/tokens/:id and its pool and worker", () => {
  it("shows a token's detail", async () => {
    const { status, body } = await get("/api/launchpad/tokens/101");
    assert.equal(status, 200);
    assert.deepEqual(body, {
      token: {
        address: addressOf(1),
        name: "ALPHA agent",
        symbol: "ALPHA",
        decimals: 18,
        totalSupply: "1000000000",
        owner: addressOf(501),
        spawnedAt: NOW - 5 * DAY,
      },
      pool: {
        address: addressOf(1001),
        side: "STABLE",
        feeTier: 3000,
        tvl: "1000",
        volume24h: "500",
        tvlStable: "1000",
        volume24hStable: "500",
        lastTradeAt: null,
      },
      worker: {
        id: 1,
        agentNftId: 101,
        status: "active",
        suspendedUntil: null,
        lastActionAt: NOW - 3_600 + 24,
        actionCount: 27,
      },
      metadata: {
        description: "ALPHA description",
        logoUri: "https://example.org/ALPHA.png",
        website: "https://example.org/ALPHA",
      },
      boost: { active: true, tier: 2, expiresAt: NOW + 1_000 },
    });
  });

  it("keeps an expired boost visible", async () => {
    assert.deepEqual((await get(`/api/launchpad/tokens/${addressOf(2)}`)).body.boost, {
      active: false,
      tier: 1,
      expiresAt: NOW - 10,
    });
    assert.deepEqual((await get("/api/launchpad/tokens/103")).body.boost, {
      active: false,
      tier: null,
      expiresAt: null,
    });
  });

  it("shows the pool with price, reserves and trades newest first", async () => {
    const { body } = await get("/api/launchpad/tokens/103/pool");
    assert.deepEqual(
      { ...body, recentTrades: undefined },
      {
        address: addressOf(1003),
        token: addressOf(3),
        pairAsset: addressOf(9001),
        side: "STABLE",
        feeTier: 3000,
        reserves: { token: "800000000", pair: "0", virtualPair: "10000" },
        price: "0.000012500000000000",
        tvl: "0",
        volume24h: "101.5",
        tvlStable: "0",
        volume24hStable: "101.5",
        swapCount24h: 2,
        lastTradeAt: null,
        recentTrades: undefined,
      },
    );
    assert.deepEqual(body.recentTrades, [
      {
        txHash: `0x${(10_005).toString(16).padStart(64, "0")}`,
        side: "buy",
        amountIn: "1.5",
        amountOut: "0.5",
        trader: addressOf(605),
        blockNumber: 99,
        timestamp: NOW - 10,
      },
      {
        txHash: `0x${(10_004).toString(16).padStart(64, "0")}`,
        side: "sell",
        amountIn: "7",
        amountOut: "100",
        trader: addressOf(604),
        blockNumber: 99,
        timestamp: NOW - 10,
      },
    ]);
  });

  it("prices a wrapped-native pool", async () => {
    const { body } = await get("/api/launchpad/tokens/102/pool");
    assert.deepEqual(
      [body.price, body.reserves, body.tvl],
      ["1.500000000000000000", { token: "4", pair: "1", virtualPair: "5" }, "1"],
    );
    assert.deepEqual([body.tvlStable, body.volume24hStable], ["2000", "4000"]);
  });

  it("values wrapped native at the configured reference price, exactly", async () => {
    const priced = createEcosystemApi({
      db: database.db,
      now: () => NOW,
      rateLimitPerMinute: 100,
      wrappedNativePrice: 1_234_567_891n,
    });
    const pool = (await (await priced.request("/api/launchpad/tokens/102/pool")).json()) as any;
    assert.deepEqual([pool.tvlStable, pool.volume24hStable], ["1234.567891", "2469.135782"]);
    // Below ALPHA's 1,000 stable of volume only when 2 wrapped native are worth less than that.
    const cheap = createEcosystemApi({
      db: database.db,
      now: () => NOW,
      rateLimitPerMinute: 100,
      wrappedNativePrice: 200_000_000n,
    });
    const list = (await (await cheap.request("/api/launchpad/tokens?sort=volume")).json()) as any;
    assert.deepEqual(
      list.items.map((t: any) => [t.symbol, t.volume24hStable]),
      [
        ["ALPHA", "500"],
        ["BETA", "400"],
        ["GAMMA", "101.5"],
      ],
    );
  });

  it("shows the worker with its newest actions", async () => {
    const { body } = await get("/api/launchpad/tokens/101/worker");
    assert.deepEqual(body.worker, {
      id: 1,
      agentNftId: 101,
      status: "active",
      suspendedUntil: null,
      deployedAt: NOW - 5 * DAY,
    });
    assert.deepEqual(body.stats, { totalActions: 27, lastActiveAt: NOW - 5 * DAY });
    assert.equal(body.recentActions.length, 20);
    assert.deepEqual(Object.keys(body.recentActions[0]), [
      "txHash",
      "actionType",
      "params",
      "blockNumber",
      "blockTimestamp",
    ]);
  });

  it("answers 404 and 400 on every token route", async () => {
    for (const suffix of ["", "/pool", "/worker"]) {
      assert.equal((await get(`/api/launchpad/tokens/${addressOf(88)}${suffix}`)).status, 404);
      assert.equal((await get(`/api/launchpad/tokens/0xnothex${suffix}`)).body.code, "INVALID_PARAM");
    }
  });
});

describe("answers and their documented schemas", () => {
  const samples: Record<string, string[]> = {
    "/api/agents/overview": ["/api/agents/overview"],
    "/api/agents/workers": ["/api/agents/workers", "/api/agents/workers?status=suspended"],
    "/api/agents/workers/{tokenId}": ["/api/agents/workers/101", "/api/agents/workers/102"],
    "/api/agents/action-logs": ["/api/agents/action-logs?pageSize=100"],
    "/api/agents/workers/{tokenId}/proposals": [
      "/api/agents/workers/101/proposals",
      "/api/agents/workers/102/proposals?status=open",
    ],
    "/api/agents/proposals/{proposalId}": ["/api/agents/proposals/1", "/api/agents/proposals/5"],
    "/api/launchpad/tokens": ["/api/launchpad/tokens?sort=volume"],
    "/api/launchpad/tokens/{id}": ["/api/launchpad/tokens/101", "/api/launchpad/tokens/103"],
    "/api/launchpad/tokens/{id}/pool": ["/api/launchpad/tokens/101/pool", "/api/launchpad/tokens/102/pool"],
    "/api/launchpad/tokens/{id}/worker": ["/api/launchpad/tokens/103/worker"],
    "/api/launchpad/tokens/{id}/trades": ["/api/launchpad/tokens/101/trades", "/api/launchpad/tokens/103/trades"],
    "/api/launchpad/tokens/{id}/candles": [
      `/api/launchpad/tokens/103/candles?interval=minute&start=${NOW - 3_600}&end=${NOW}`,
      `/api/launchpad/tokens/102/candles?interval=day&start=${NOW - 3 * DAY}&end=${NOW}`,
    ],
    "/api/launchpad/tokens/{id}/holders": ["/api/launchpad/tokens/101/holders"],
  };

  // The event streams answer text/event-stream, not one JSON body: api/streams/streams.test.ts checks them.
  const jsonRoutes = READ_ROUTES.filter((r) => r.responseType !== "text/event-stream");

  it("has a sample for every route", () => {
    assert.deepEqual(Object.keys(samples).sort(), jsonRoutes.map((r) => r.path).sort());
  });

  for (const route of jsonRoutes) {
    it(`${route.path} answers exactly its response schema`, async () => {
      for (const path of samples[route.path] ?? []) {
        const { status, body } = await get(path);
        assert.equal(status, 200, path);
        // Parsing strips unknown keys: equality means no field is missing, mistyped or extra.
        assert.deepEqual(route.response.parse(body), body, path);
      }
    });
  }
});

describe("the app around the routes", () => {
  it("answers unknown /api paths with 404 NOT_FOUND", async () => {
    const { status, body } = await get("/api/agents/nothing");
    assert.deepEqual([status, body.code], [404, "NOT_FOUND"]);
  });

  it("sets a request id", async () => {
    const res = await app.request("/api/agents/overview", { headers: { "x-request-id": "abc-123" } });
    assert.equal(res.headers.get("x-request-id"), "abc-123");
    assert.match((await app.request("/api/agents/overview")).headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  });

  it("limits /api/* per client, not /openapi.json", async () => {
    const limited = createEcosystemApi({
      db: database.db,
      now: () => NOW,
      rateLimitPerMinute: 2,
      rateLimitClock: () => 0,
    });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await limited.request("/api/agents/workers?status=bogus")).status);
    assert.deepEqual(statuses, [400, 400, 429]);
    const refused = await limited.request("/api/agents/overview");
    assert.equal(refused.headers.get("retry-after"), "60");
    assert.deepEqual(await refused.json(), { code: "RATE_LIMITED", message: "Too many requests; retry in 60 s" });
    assert.equal((await limited.request("/openapi.json")).status, 200);
  });

  it("counts /sql/* and /graphql in the same per-client quota as /api/*", async () => {
    const limited = createEcosystemApi({
      db: database.db,
      now: () => NOW,
      rateLimitPerMinute: 3,
      rateLimitClock: () => 0,
      explorer: {
        sql: async (c) => c.json({ rows: [] }),
        graphql: async (c) => c.json({ data: {} }),
        maxCost: 1,
        maxRows: 1,
      },
    });
    const query = encodeURIComponent(JSON.stringify({ json: { sql: "select 1", params: [] } }));
    const statuses = [
      (await limited.request(`/sql/db?sql=${query}`)).status,
      (await limited.request("/graphql", { method: "POST", body: "{}" })).status,
      (await limited.request("/api/agents/overview")).status,
    ];
    assert.deepEqual(statuses, [200, 200, 200]);
    for (const path of [`/sql/db?sql=${query}`, "/graphql", "/api/agents/overview"]) {
      const refused = await limited.request(path, path === "/graphql" ? { method: "POST", body: "{}" } : {});
      assert.equal(refused.status, 429, path);
      assert.equal(((await refused.json()) as { code: string }).code, "RATE_LIMITED");
    }
  });

  it("allows the web app's origin only (CORS), with the signing headers; preflights spend no quota", async () => {
    const web = "http://127.0.0.1:3000";
    const cors = createEcosystemApi({
      db: database.db,
      now: () => NOW,
      rateLimitPerMinute: 2,
      rateLimitClock: () => 0,
      webOrigins: [web],
    });
    const preflight = (origin: string) =>
      cors.request("/api/launchpad/spawn", {
        method: "OPTIONS",
        headers: {
          Origin: origin,
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "api-publickey,api-signature,api-timestamp,idempotency-key,content-type",
        },
      });
    for (let i = 0; i < 3; i++) {
      const res = await preflight(web);
      assert.equal(res.status, 204);
      assert.equal(res.headers.get("access-control-allow-origin"), web);
      assert.equal(res.headers.get("access-control-allow-methods"), "GET,POST");
      assert.deepEqual(res.headers.get("access-control-allow-headers")?.split(","), [
        "API-PublicKey",
        "API-Signature",
        "API-Timestamp",
        "Content-Type",
        "Idempotency-Key",
        "Last-Event-ID",
      ]);
    }
    // Another origin's preflight is an ordinary request to an unknown route (and counts).
    const foreign = await preflight("https://evil.example");
    assert.equal(foreign.status, 404);
    assert.deepEqual(
      [...foreign.headers.keys()].filter((h) => h.startsWith("access-control-")),
      [],
    );
    // The last request of the quota, then a 429 the page can still read (and its Retry-After).
    const first = await cors.request("/api/agents/overview", { headers: { Origin: web } });
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("access-control-allow-origin"), web);
    const refused = await cors.request("/api/launchpad/tokens", { headers: { Origin: web } });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("access-control-allow-origin"), web);
    assert.match(refused.headers.get("access-control-expose-headers") ?? "", /Retry-After/);
    const other = await cors.request("/openapi.json", { headers: { Origin: "https://evil.example" } });
    assert.equal(other.headers.get("access-control-allow-origin"), null);
  });

  it("hides database failures behind 500 INTERNAL", async () => {
    const broken = createEcosystemApi({
      db: new Proxy(database.db, {
        get: () => () => {
          throw new Error("relation agent_token does not exist at 10.0.0.5");
        },
      }),
      rateLimitPerMinute: 100,
      log: () => {},
    });
    const res = await broken.request("/api/launchpad/tokens");
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { code: "INTERNAL", message: "Internal error" });
  });
});
