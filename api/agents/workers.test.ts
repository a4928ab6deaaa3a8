import assert from "node:assert/strict";
import { afterAll, beforeAll, describe, it } from "vitest";
import { createEcosystemApi } from "../index.ts";
import { createTestDatabase, type TestDatabase } from "../../test/support/api/database.ts";
import { type ActionFixture, insertActions, insertToken, setChainHead } from "../../test/support/api/fixtures.ts";

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
