import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, it } from "vitest";
import { worker } from "../../indexer/schema.ts";
import { createEcosystemApi } from "../index.ts";
import { createTestDatabase, type TestDatabase } from "../../support/api/database.ts";
import { type ActionFixture, insertActions, insertToken, setChainHead } from "../../support/api/fixtures.ts";

// actionCount24h from the hourly buckets plus the partial hour: every edge of the window,
// checked against a plain count of the same fixture rows.

const DAY = 86_400;
const NOW = 2_000_001_234; // not on an hour boundary, so the window starts inside an hour
const START = NOW - DAY + 1;
const BOUNDARY = Math.ceil(START / 3_600) * 3_600;

describe("GET /api/agents/workers actionCount24h at the window's edges", () => {
  let database: TestDatabase;
  let app: ReturnType<typeof createEcosystemApi>;
  const actions: ActionFixture[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    await insertToken(database.db, { n: 1, symbol: "ALPHA", spawnedAt: NOW - 5 * DAY });
    await insertToken(database.db, { n: 2, symbol: "BETA", spawnedAt: NOW - 5 * DAY });
    const times = [
      START - 3_600, // the hour before: out
      START - 1, // one second early: out
      START, // first second of the window: in (partial hour)
      START + 10, // partial hour: in
      BOUNDARY - 1, // last second of the partial hour: in
      BOUNDARY, // first whole hour: in
      BOUNDARY + 7_200,
      NOW - 1,
      NOW,
      NOW + 600, // a chain clock ahead of "now" still counts, as before
    ];
    let entryId = 1;
    for (const time of times) {
      actions.push({
        entryId: entryId++,
        targetTokenId: 101n,
        sourceTier: "worker",
        actionType: "trade",
        timestamp: time,
      });
      if (time >= BOUNDARY)
        actions.push({
          entryId: entryId++,
          targetTokenId: 102n,
          sourceTier: "scout",
          actionType: "flag",
          timestamp: time,
        });
    }
    await insertActions(database.db, actions);
    await setChainHead(database.db, NOW);
    app = createEcosystemApi({ db: database.db, rateLimitPerMinute: 1000, now: () => NOW - 10 * DAY });
  });

  afterAll(async () => database?.close());

  it("counts exactly the actions at or after now - 24 h + 1 s, per token", async () => {
    const res = await app.request("/api/agents/workers");
    assert.equal(res.status, 200);
    const body = (await res.json()) as { items: { agentNftId: number; actionCount24h: number }[] };
    const expected = (token: bigint) => actions.filter((a) => a.targetTokenId === token && a.timestamp >= START).length;
    assert.deepEqual(
      body.items.map((w) => [w.agentNftId, w.actionCount24h]),
      [
        [101, expected(101n)],
        [102, expected(102n)],
      ],
    );
    assert.deepEqual([expected(101n), expected(102n)], [8, 5], "the fixture spans both parts of the window");
  });
});

// Issue 24, finding 2: an override suspends a worker until a resume or until its cool-off ends.
// The end of a cool-off is no transaction (no event), so every reader takes the status as of now.
describe("a worker's status as of now, with overrides' cool-offs", () => {
  let database: TestDatabase;
  let app: ReturnType<typeof createEcosystemApi>;
  const symbols = ["ALPHA", "BETA", "GAMMA", "DELTA", "OMEGA"];

  beforeAll(async () => {
    database = await createTestDatabase();
    for (const [i, symbol] of symbols.entries())
      await insertToken(database.db, {
        n: i + 1,
        symbol,
        spawnedAt: NOW - DAY,
        status: i === 0 ? "active" : "suspended",
      });
    const suspend = (id: bigint, until: number | null, resumeStatus: string | null) =>
      database.db
        .update(worker)
        .set({ suspendedUntil: until, suspendedByTier: until === null ? null : "queen", resumeStatus })
        .where(eq(worker.id, id));
    await suspend(2n, NOW + 60, "active"); // BETA: the cool-off runs for another minute
    await suspend(3n, NOW, "active"); // GAMMA: it ended this second
    await suspend(4n, NOW - 600, "idle"); // DELTA: it ended, and DELTA was idle before it
    // OMEGA: a manager's suspension has no end.
    await setChainHead(database.db, NOW);
    app = createEcosystemApi({ db: database.db, rateLimitPerMinute: 1000, now: () => NOW - DAY });
  });

  afterAll(async () => database?.close());

  const get = async <T>(path: string) => {
    const res = await app.request(path);
    assert.equal(res.status, 200, path);
    return (await res.json()) as T;
  };

  it("lists and filters by the status as of now", async () => {
    const all = await get<{ items: { tokenSymbol: string; status: string }[] }>("/api/agents/workers");
    assert.deepEqual(
      all.items.map((w) => [w.tokenSymbol, w.status]),
      [
        ["ALPHA", "active"],
        ["BETA", "suspended"],
        ["GAMMA", "active"],
        ["DELTA", "idle"],
        ["OMEGA", "suspended"],
      ],
    );
    for (const [status, expected] of [
      ["active", ["ALPHA", "GAMMA"]],
      ["suspended", ["BETA", "OMEGA"]],
      ["idle", ["DELTA"]],
    ] as const) {
      const page = await get<{ items: { tokenSymbol: string }[]; totalItems: number }>(
        `/api/agents/workers?status=${status}`,
      );
      assert.deepEqual(
        page.items.map((w) => w.tokenSymbol),
        expected,
        status,
      );
      assert.equal(page.totalItems, expected.length);
    }
  });

  it("the worker detail, the overview and the launchpad say the same", async () => {
    const expected = ["active", "suspended", "active", "idle", "suspended"];
    for (const [i, status] of expected.entries()) {
      const nftId = 101 + i;
      const detail = await get<{ worker: { status: string } }>(`/api/agents/workers/${nftId}`);
      const launchpadWorker = await get<{ worker: { status: string } }>(`/api/launchpad/tokens/${nftId}/worker`);
      const token = await get<{ worker: { status: string } }>(`/api/launchpad/tokens/${nftId}`);
      assert.deepEqual(
        [detail.worker.status, launchpadWorker.worker.status, token.worker.status],
        [status, status, status],
        symbols[i],
      );
    }
    const tokens = await get<{ items: { symbol: string; workerStatus: string }[] }>(
      "/api/launchpad/tokens?pageSize=100",
    );
    assert.deepEqual(
      symbols.map((s) => tokens.items.find((t) => t.symbol === s)?.workerStatus),
      expected,
    );
    const overview = await get<{ swarm: { activeWorkers: number } }>("/api/agents/overview");
    assert.equal(overview.swarm.activeWorkers, 2);
  });

  it("says when an override's suspension ends, in every worker shape; null once over or without an end", async () => {
    // ALPHA never suspended; BETA's cool-off runs a minute more; GAMMA's and DELTA's ended; OMEGA's has no end.
    const expected = [null, NOW + 60, null, null, null];
    for (const [i, until] of expected.entries()) {
      const nftId = 101 + i;
      type Shape = { worker: { suspendedUntil: number | null } };
      const shapes = await Promise.all([
        get<Shape>(`/api/agents/workers/${nftId}`),
        get<Shape>(`/api/launchpad/tokens/${nftId}/worker`),
        get<Shape>(`/api/launchpad/tokens/${nftId}`),
      ]);
      assert.deepEqual(
        shapes.map((s) => s.worker.suspendedUntil),
        [until, until, until],
        symbols[i],
      );
    }
  });
});
