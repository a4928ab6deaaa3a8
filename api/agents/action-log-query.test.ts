import assert from "node:assert/strict";
import { afterAll, beforeAll, describe, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../support/api/database.ts";
import { type ActionFixture, insertActions } from "../../support/api/fixtures.ts";
import { type ActionFilter, findActions } from "./action-log-query.ts";

/**
 * The fast paths (id ranges, deferred joins, reading from the far end) must answer exactly what
 * a plain filter-sort-slice does: compared here over many filters and pages.
 */

const TYPES = ["trade", "flag", "override", "directive"];
const TIERS = ["worker", "scout", "queen"] as const;

// 1500 entries (several histogram buckets), ids dense from 1, several per timestamp, times
// non-decreasing (as on chain).
const entries: ActionFixture[] = Array.from({ length: 1500 }, (_, i) => ({
  entryId: i + 1,
  targetTokenId: BigInt(101 + (i % 5)),
  sourceTier: TIERS[(i * 7) % 3]!,
  actionType: TYPES[(i * 3) % 4]!,
  timestamp: 1_000 + Math.floor(i / 3) * 10,
}));

function model(filter: ActionFilter, page: number, pageSize: number) {
  const matching = entries
    .filter((e) => filter.tokenId === undefined || e.targetTokenId === filter.tokenId)
    .filter((e) => filter.actionType === undefined || e.actionType === filter.actionType)
    .filter((e) => filter.sourceTier === undefined || e.sourceTier === filter.sourceTier)
    .filter((e) => filter.since === undefined || e.timestamp >= filter.since)
    .filter((e) => filter.until === undefined || e.timestamp <= filter.until)
    .sort((a, b) => b.entryId - a.entryId);
  return { ids: matching.slice((page - 1) * pageSize, page * pageSize).map((e) => e.entryId), total: matching.length };
}

describe("findActions", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await insertActions(database.db, entries);
  });
  afterAll(() => database.close());

  const filters: ActionFilter[] = [
    {},
    { since: 1_500 },
    { until: 1_500 },
    { since: 1_205, until: 4_795 },
    { since: 1_500, until: 1_500 },
    { since: 5_000 },
    { until: 999 },
    { since: 0, until: 3_000_000_000 },
    { tokenId: 103n },
    { tokenId: 999n },
    { actionType: "override" },
    { sourceTier: "queen" },
    { tokenId: 102n, actionType: "trade" },
    { tokenId: 104n, since: 1_300, until: 3_700 },
    { sourceTier: "worker", actionType: "flag", since: 1_100 },
  ];

  for (const filter of filters) {
    it(`pages ${JSON.stringify(filter, (_, v) => (typeof v === "bigint" ? `${v}n` : v))} like the model`, async () => {
      for (const [page, pageSize] of [
        [1, 20],
        [2, 20],
        [3, 7],
        [1, 100],
        [4, 100],
        [9, 13],
        [12, 7],
        [40, 7],
        [1, 1],
        [300, 1],
        [13, 100],
        [15, 100],
        [50, 20],
        [130, 3],
        [1499, 1],
        [2000, 1],
      ] as const) {
        const expected = model(filter, page, pageSize);
        const actual = await findActions(database.db, filter, { page, pageSize });
        assert.deepEqual(
          { ids: actual.rows.map((r) => Number(r.entryId)), total: actual.total },
          expected,
          `page ${page} of ${pageSize}`,
        );
      }
    });
  }

  it("returns full rows with decoded payloads", async () => {
    const { rows } = await findActions(database.db, { tokenId: 101n }, { page: 1, pageSize: 1 });
    assert.equal(rows[0]!.entryId, 1496n);
    assert.deepEqual(rows[0]!.payload, { n: 1496 });
    assert.equal(rows[0]!.timestamp, 1_000 + 498 * 10);
  });
});

describe("findActions on an empty log", () => {
  it("answers nothing", async () => {
    const database = await createTestDatabase();
    try {
      assert.deepEqual(await findActions(database.db, {}, { page: 1, pageSize: 20 }), { rows: [], total: 0 });
      assert.deepEqual(await findActions(database.db, { tokenId: 1n }, { page: 2, pageSize: 20 }), {
        rows: [],
        total: 0,
      });
    } finally {
      await database.close();
    }
  });
});
