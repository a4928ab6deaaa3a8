import { setTimeout as sleep } from "node:timers/promises";
import assert from "node:assert/strict";
import { eq } from "ponder";
import { afterAll, beforeAll, describe, it } from "vitest";
import { action, boost, vote } from "../../indexer/schema.ts";
import { createTestDatabase, type TestDatabase } from "../../support/api/database.ts";
import {
  type ActionFixture,
  actionRow,
  addressOf,
  hashOf,
  insertActions,
  insertProposal,
  insertSwap,
  insertToken,
} from "../../support/api/fixtures.ts";
import { openSse, type SseMessage, type SseReader } from "../../support/sse.ts";
import { createEcosystemApi } from "../index.ts";
import { eventIdOf } from "./event-id.ts";
import { boostEventData, spawnEventData, swapEventData, voteEventData } from "./routes.ts";

/**
 * Both streams over HTTP (the whole app, app.request) on an in-memory database: what a client
 * receives as rows are committed, filters, reconnecting with Last-Event-ID, retractions when rows
 * of a reorg are rewritten, limits, and errors. The chain and Ponder: test/ecosystem/streams.test.ts.
 */

const NOW = 2_000_000_000;
const E18 = 10n ** 18n;
const E6 = 10n ** 6n;
const REPLAY_MAX = 5;
const PER_IP = 4;

let database: TestDatabase;
let app: ReturnType<typeof createEcosystemApi>;
const open: SseReader[] = [];

/** Entry n as the fixtures write it: block 1000 + n, transaction hashOf(n). */
const actionId = (n: number) => eventIdOf([1000 + n, n], hashOf(n));
const entry = (n: number, more: Partial<ActionFixture> = {}): ActionFixture => ({
  entryId: n,
  targetTokenId: 101n,
  sourceTier: "worker",
  actionType: "trade",
  timestamp: NOW + n,
  ...more,
});

async function stream(path: string, headers: Record<string, string> = {}) {
  const reader = await openSse(app.request(path, { headers }));
  open.push(reader);
  return reader;
}
const data = (message: SseMessage) => JSON.parse(message.data);
async function get(path: string) {
  const res = await app.request(path);
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}
/** Closes the readers a test opened; the server frees their places as it sees them go. */
async function closeAll() {
  await Promise.all(open.splice(0).map((r) => r.close()));
  await sleep(50);
}

beforeAll(async () => {
  database = await createTestDatabase();
  await insertToken(database.db, { n: 1, symbol: "ALPHA", spawnedAt: NOW - 100 });
  await insertToken(database.db, { n: 2, symbol: "BETA", side: "WRAPPED_NATIVE", spawnedAt: NOW - 50 });
  await insertActions(
    database.db,
    [1, 2, 3].map((n) => entry(n)),
  );
  app = createEcosystemApi({
    db: database.db as never,
    rateLimitPerMinute: 100_000,
    streams: {
      pollMs: 20,
      reorgWindowBlocks: 240,
      maxConnectionsPerIp: PER_IP,
      maxConnections: 100,
      replayMax: REPLAY_MAX,
      heartbeatMs: 300,
    },
  });
});

afterAll(async () => {
  await closeAll();
  await database?.close();
});

describe("GET /api/agents/action-logs/stream", () => {
  it("sends each new entry as it is committed, shaped as the REST list shows it", async () => {
    try {
      const s = await stream("/api/agents/action-logs/stream");
      await insertActions(database.db, [entry(4), entry(5, { sourceTier: "queen", actionType: "override" })]);
      const [four, five] = [await s.next(), await s.next()];
      assert.deepEqual([four.event, four.id, five.event, five.id], ["action", actionId(4), "action", actionId(5)]);
      const list = await get("/api/agents/action-logs?pageSize=2");
      assert.deepEqual([data(five), data(four)], list.body.items);
      assert.equal(s.retry, 2_000);
    } finally {
      await closeAll();
    }
  });

  it("applies the list's filters", async () => {
    try {
      const s = await stream("/api/agents/action-logs/stream?sourceTier=queen&actionType=override&tokenId=102");
      await insertActions(database.db, [
        entry(6, { sourceTier: "queen", actionType: "override" }),
        entry(7, { sourceTier: "worker", targetTokenId: 102n }),
        entry(8, { sourceTier: "queen", actionType: "override", targetTokenId: 102n }),
      ]);
      const message = await s.next();
      assert.equal(message.id, actionId(8));
      const t = await stream(`/api/agents/action-logs/stream?since=${NOW + 10}&until=${NOW + 11}`);
      await insertActions(database.db, [entry(9), entry(10), entry(11), entry(12)]);
      assert.deepEqual([(await t.next()).id, (await t.next()).id], [actionId(10), actionId(11)]);
    } finally {
      await closeAll();
    }
  });

  it("gives a client reconnecting with Last-Event-ID what it missed, without gap or double", async () => {
    try {
      const first = await stream("/api/agents/action-logs/stream");
      await insertActions(database.db, [entry(13), entry(14), entry(15)]);
      assert.equal((await first.next()).id, actionId(13));
      await first.close();
      await insertActions(database.db, [entry(16)]);
      const again = await stream("/api/agents/action-logs/stream", { "Last-Event-ID": actionId(13) });
      const replayed = [await again.next(), await again.next(), await again.next()];
      assert.deepEqual(
        replayed.map((m) => m.id),
        [14, 15, 16].map(actionId),
      );
      await insertActions(database.db, [entry(17)]);
      assert.equal((await again.next()).id, actionId(17), "live after the catch-up, nothing twice");
      // The query form, for EventSource polyfills; the header (what EventSource sends) wins over it.
      const byQuery = await stream(`/api/agents/action-logs/stream?lastEventId=${actionId(15)}`);
      assert.equal((await byQuery.next()).id, actionId(16));
      const both = await stream(`/api/agents/action-logs/stream?lastEventId=${actionId(14)}`, {
        "Last-Event-ID": actionId(16),
      });
      assert.equal((await both.next()).id, actionId(17));
      // Filters apply to the catch-up too.
      const filtered = await stream("/api/agents/action-logs/stream?sourceTier=queen", {
        "Last-Event-ID": actionId(4),
      });
      assert.deepEqual([(await filtered.next()).id, (await filtered.next()).id], [actionId(5), actionId(6)]);
    } finally {
      await closeAll();
    }
  });

  it("replays at most the newest 1,000 (here 5) missed events, after a resync notice", async () => {
    try {
      const s = await stream("/api/agents/action-logs/stream", { "Last-Event-ID": actionId(10) });
      const resync = await s.next();
      assert.equal(resync.event, "resync");
      assert.deepEqual(data(resync), {
        reason: "replay_limit",
        lastEventId: actionId(10),
        replayedFrom: actionId(13),
        replayMax: REPLAY_MAX,
      });
      const ids = [];
      for (let i = 0; i < REPLAY_MAX; i++) ids.push((await s.next()).id);
      assert.deepEqual(ids, [13, 14, 15, 16, 17].map(actionId));
    } finally {
      await closeAll();
    }
  });

  it("says resync for a Last-Event-ID the database does not hold, then goes on live", async () => {
    try {
      // Entry 17 exists, but not in that transaction: the client saw an event a reorg replaced.
      const stale = eventIdOf([1017, 17], hashOf(9_999));
      const s = await stream("/api/agents/action-logs/stream", { "Last-Event-ID": stale });
      assert.deepEqual(data(await s.next()), { reason: "unknown_last_event_id", lastEventId: stale });
      await insertActions(database.db, [entry(18)]);
      assert.equal((await s.next()).id, actionId(18));
    } finally {
      await closeAll();
    }
  });

  it("retracts entries a reorg rewrote, then sends the new ones", async () => {
    try {
      const s = await stream("/api/agents/action-logs/stream");
      await insertActions(database.db, [entry(19), entry(20)]);
      assert.deepEqual([(await s.next()).id, (await s.next()).id], [actionId(19), actionId(20)]);
      // Ponder's reorg: entry 20's block is dropped, and another transaction of the new branch gets entry 20.
      await database.db.delete(action).where(eq(action.entryId, 20n));
      await database.db
        .insert(action)
        .values({ ...actionRow(entry(20, { actionType: "flag" })), txHash: hashOf(7_020) });
      const retract = await s.next();
      assert.deepEqual(
        [retract.event, retract.id, data(retract)],
        ["retract", undefined, { id: actionId(20), event: "action" }],
      );
      const replacement = await s.next();
      assert.equal(replacement.id, eventIdOf([1020, 20], hashOf(7_020)));
      assert.equal(data(replacement).actionType, "flag");
      assert.equal(s.lastEventId, replacement.id);
    } finally {
      await closeAll();
    }
  });

  it("sends a heartbeat comment when nothing happens", async () => {
    try {
      const s = await stream("/api/agents/action-logs/stream");
      await s.anything(2_000);
      assert.deepEqual(s.comments, ["ping"]);
    } finally {
      await closeAll();
    }
  });
});

describe("GET /api/launchpad/stream", () => {
  it("sends spawns, swaps, votes and boosts in chain order, shaped as their REST items", async () => {
    try {
      const s = await stream("/api/launchpad/stream");
      await insertToken(database.db, { n: 3, symbol: "GAMMA", spawnedAt: NOW });
      await insertSwap(database.db, {
        n: 1,
        tokenN: 3,
        isBuy: true,
        amountIn: 50n * E6,
        amountOut: 7n * E18,
        timestamp: NOW + 1,
        block: 50,
        logIndex: 3,
      });
      await insertProposal(database.db, { id: 1, workerId: 3n, endTime: NOW + 86_400 });
      await database.db.insert(vote).values({
        voteId: 1n,
        proposalId: 1n,
        voter: addressOf(4),
        support: "yes",
        weight: 5n * E18,
        comment: "ok",
        relayed: false,
        votedAt: NOW + 2,
        blockNumber: 60n,
        logIndex: 0,
        txHash: hashOf(60),
      });
      await database.db.insert(boost).values({
        id: `${hashOf(70)}-1`,
        agentNftId: 103n,
        token: addressOf(3),
        buyer: addressOf(5),
        tier: 2,
        expiresAt: NOW + 7 * 86_400,
        paid: 5n * 10n ** 16n,
        timestamp: NOW + 3,
        blockNumber: 70n,
        logIndex: 1,
        txHash: hashOf(70),
      });
      const got = [await s.next(), await s.next(), await s.next(), await s.next()];
      assert.deepEqual(
        got.map((m) => [m.event, m.id]),
        [
          ["spawn", eventIdOf([3, 0], hashOf(3))],
          ["swap", eventIdOf([50, 3], hashOf(10_001))],
          ["vote", eventIdOf([60, 0], hashOf(60))],
          ["boost", eventIdOf([70, 1], hashOf(70))],
        ],
      );
      const [spawn, swap, voted, boosted] = got.map(data);
      for (const [schema, value] of [
        [spawnEventData, spawn],
        [swapEventData, swap],
        [voteEventData, voted],
        [boostEventData, boosted],
      ] as const)
        assert.deepEqual(schema.parse(value), value, "exactly its documented shape");
      assert.deepEqual(spawn, {
        token: {
          address: addressOf(3),
          name: "GAMMA agent",
          symbol: "GAMMA",
          totalSupply: "1000000000",
          owner: addressOf(503),
        },
        pool: { address: addressOf(1003), side: "STABLE", feeTier: 3000 },
        worker: { id: 3, agentNftId: 103 },
        txHash: hashOf(3),
        spawnedAt: NOW,
      });
      const pool = await get(`/api/launchpad/tokens/${addressOf(3)}/pool`);
      const trades = await get(`/api/launchpad/tokens/${addressOf(3)}/trades`);
      assert.deepEqual(swap, {
        ...pool.body.recentTrades[0],
        ...trades.body.items[0],
        tokenAddress: addressOf(3),
        poolAddress: addressOf(1003),
      });
      const proposal = await get("/api/agents/proposals/1");
      assert.deepEqual(voted, { ...proposal.body.votes.items[0], tokenAddress: addressOf(3) });
      assert.deepEqual(boosted, {
        tokenAddress: addressOf(3),
        agentNftId: 103,
        buyer: addressOf(5),
        tier: 2,
        expiresAt: NOW + 7 * 86_400,
        paid: "0.05",
        txHash: hashOf(70),
        timestamp: NOW + 3,
      });
    } finally {
      await closeAll();
    }
  });

  it("filters by types and token, live and in the catch-up", async () => {
    try {
      const swapsOfBeta = await stream(`/api/launchpad/stream?types=swap,boost&tokenAddress=${addressOf(2)}`);
      const spawnsAndVotes = await stream("/api/launchpad/stream?types=spawn,vote", {
        "Last-Event-ID": eventIdOf([3, 0], hashOf(3)),
      });
      assert.equal((await spawnsAndVotes.next()).event, "vote", "the catch-up skips the swap");
      await insertSwap(database.db, {
        n: 2,
        tokenN: 1,
        isBuy: true,
        amountIn: E6,
        amountOut: E18,
        timestamp: NOW + 4,
        block: 80,
      });
      await insertSwap(database.db, {
        n: 3,
        tokenN: 2,
        isBuy: false,
        amountIn: E18,
        amountOut: E18 / 2n,
        timestamp: NOW + 5,
        block: 81,
      });
      // The fixtures spawn token n in block n.
      await insertToken(database.db, { n: 90, symbol: "OMEGA", spawnedAt: NOW + 7 });
      const swap = await swapsOfBeta.next();
      assert.deepEqual([swap.event, data(swap).tokenAddress], ["swap", addressOf(2)]);
      assert.equal(data(await spawnsAndVotes.next()).token.symbol, "OMEGA");
    } finally {
      await closeAll();
    }
  });
});

describe("limits and errors", () => {
  it("answers 400 INVALID_PARAM naming the parameter or header", async () => {
    const cases: [string, Record<string, string>, string][] = [
      ["/api/agents/action-logs/stream?lastEventId=nope", {}, "lastEventId: must be an event id"],
      ["/api/agents/action-logs/stream", { "Last-Event-ID": "12" }, "Last-Event-ID: must be an event id"],
      ["/api/agents/action-logs/stream?since=5&until=4", {}, "since: must not be greater than until"],
      ["/api/agents/action-logs/stream?sourceTier=king", {}, "sourceTier: must be one of queen, scout, worker"],
      [
        "/api/launchpad/stream?types=spawn,mint",
        {},
        "types: must be a comma-separated list of spawn, swap, vote, boost",
      ],
      ["/api/launchpad/stream?tokenAddress=0x12", {}, "tokenAddress: must be a 0x-prefixed 20-byte hex address"],
    ];
    for (const [path, headers, message] of cases) {
      const res = await app.request(path, { headers });
      assert.equal(res.status, 400, path);
      const body = (await res.json()) as { code: string; message: string };
      assert.equal(body.code, "INVALID_PARAM", path);
      assert.ok(body.message.startsWith(message), `${path}: ${body.message}`);
    }
  });

  it("counts as one request of the rate limit, and holds at most SSE_MAX_CONNECTIONS_PER_IP streams per client", async () => {
    try {
      const res = await app.request("/api/launchpad/stream");
      open.push(await openSse(res));
      assert.ok(res.headers.get("RateLimit-Remaining"));
      for (let i = 1; i < PER_IP; i++) await stream("/api/agents/action-logs/stream");
      const refused = await get("/api/launchpad/stream");
      assert.equal(refused.status, 429);
      assert.equal(refused.body.code, "RATE_LIMITED");
      assert.equal(refused.headers.get("Retry-After"), "10");
      await open.pop()!.close();
      await sleep(50);
      await stream("/api/launchpad/stream");
    } finally {
      await closeAll();
    }
  });

  it("an IPv6 /64 is one client: addresses of one /64 share one request quota and one set of stream places", async () => {
    // Behind a trusted proxy, as an IPv6 client is seen when the test cannot bind many addresses.
    const proxied = createEcosystemApi({
      db: database.db as never,
      rateLimitPerMinute: 4,
      trustProxy: true,
      streams: { pollMs: 20, reorgWindowBlocks: 240, maxConnectionsPerIp: 2, maxConnections: 100 },
    });
    const from = (ip: string, path: string) => proxied.request(path, { headers: { "x-forwarded-for": ip } });
    const readers: SseReader[] = [];
    try {
      readers.push(await openSse(from("2001:db8:5:5::1", "/api/launchpad/stream")));
      readers.push(await openSse(from("2001:db8:5:5:aaaa:bbbb:cccc:2", "/api/agents/action-logs/stream")));
      const third = await from("2001:db8:5:5::3", "/api/launchpad/stream");
      assert.equal(third.status, 429, "the /64's two stream places are taken");
      assert.match(((await third.json()) as { message: string }).message, /open streams per client/);
      // Three requests of the /64's quota of 4 are spent: one more, then 429, whatever the address.
      assert.equal((await from("2001:db8:5:5::4", "/api/agents/workers")).status, 200);
      const over = await from("2001:db8:5:5:ffff::5", "/api/agents/workers");
      assert.equal(over.status, 429);
      assert.equal(((await over.json()) as { code: string }).code, "RATE_LIMITED");
      assert.equal(
        (await from("2001:db8:5:6::1", "/api/agents/workers")).status,
        200,
        "the next /64 is another client",
      );
      // An IPv4 client reaching a dual-stack socket is the same client as over IPv4.
      for (let i = 0; i < 2; i++) assert.equal((await from("198.51.100.7", "/api/agents/workers")).status, 200);
      for (let i = 0; i < 2; i++) assert.equal((await from("::ffff:198.51.100.7", "/api/agents/workers")).status, 200);
      assert.equal((await from("198.51.100.7", "/api/agents/workers")).status, 429);
    } finally {
      await Promise.all(readers.map((r) => r.close()));
    }
  });

  it("sends resync to a client that falls behind by more than the queue holds, and ends its stream", async () => {
    const slowApp = createEcosystemApi({
      db: database.db as never,
      rateLimitPerMinute: 1_000,
      streams: { pollMs: 20, reorgWindowBlocks: 240, maxConnectionsPerIp: 2, maxConnections: 2, queueMax: 3 },
    });
    const s = await openSse(slowApp.request("/api/agents/action-logs/stream"));
    try {
      // The client reads nothing while 6 entries arrive: its queue (3) overflows.
      await insertActions(
        database.db,
        [21, 22, 23, 24, 25, 26].map((n) => entry(n)),
      );
      await sleep(200);
      const message = await s.next();
      assert.deepEqual([message.event, data(message)], ["resync", { reason: "slow_client", queueMax: 3 }]);
      await assert.rejects(s.next(2_000), /the stream ended/);
    } finally {
      await s.close();
    }
  });
});
