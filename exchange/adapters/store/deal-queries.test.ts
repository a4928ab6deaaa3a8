import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { mulberry32 } from "../../../lib/random.ts";
import { migrate, openDb, writeUnits, type Db, type DealRow } from "./index.ts";
import { dealsPage, latestDeals } from "./deal-queries.ts";
import { modelPage } from "../../../support/exchange/deal-page-model.ts";
import type { DealRange } from "../marketdata/recent-deals.ts";

// The database side of /api/deals and /historical_trades, held to the same model as the
// in-memory RecentDeals (recent-deals.test.ts): both must answer every page alike.

const SEED = Number(process.env.QUERIES_SEED ?? 77);
console.log(`deal queries test: QUERIES_SEED=${SEED}`);

describe("deal queries on PGlite", () => {
  let dir: string;
  let db: Db;
  const deals: DealRow[] = [];
  const random = mulberry32(SEED);
  const user = randomUUID();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "deal-queries-"));
    db = await openDb({ dataDir: dir, schema: "exchange" });
    await migrate(db);
    let time = 1_000_000;
    for (let seq = 1; seq <= 150; seq++) {
      time += Math.floor(random() * 3) * 1000; // some deals share a microsecond stamp
      deals.push({
        id: randomUUID(),
        pairCode: "ALPHA_USDT",
        tradeSeq: seq,
        priceTicks: 5000 + seq,
        amountLots: seq,
        takerIsBid: random() < 0.5,
        makerOrderId: randomUUID(),
        takerOrderId: randomUUID(),
        makerUserId: user,
        takerUserId: user,
        makerFee: 1n,
        takerFee: 2n,
        executedAtUs: time,
      });
    }
    await writeUnits(db, [{ deals }]);
  });

  afterAll(async () => {
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("pages by time range, side, offset and limit exactly as the model", async () => {
    const last = deals.at(-1)!.executedAtUs;
    for (let i = 0; i < 60; i++) {
      const pick = () => 1_000_000 + Math.floor(random() * (last - 1_000_000 + 2000));
      const range: DealRange = {
        ...(random() < 0.5 ? { sinceUs: pick() } : {}),
        ...(random() < 0.5 ? { untilUs: pick() } : {}),
        ...(random() < 0.3 ? { takerIsBid: random() < 0.5 } : {}),
        offset: Math.floor(random() * 40),
        limit: 1 + Math.floor(random() * 60),
      };
      const page = await dealsPage(db, "ALPHA_USDT", range);
      assert.deepEqual(
        page.map((d) => d.tradeSeq),
        modelPage(deals, range).map((d) => d.tradeSeq),
        JSON.stringify(range),
      );
    }
  });

  it("reads rows back exactly, and the newest N oldest first", async () => {
    const [newest] = await dealsPage(db, "ALPHA_USDT", { offset: 0, limit: 1 });
    assert.deepEqual(newest, deals.at(-1));
    assert.deepEqual(
      (await latestDeals(db, "ALPHA_USDT", 3)).map((d) => d.tradeSeq),
      [148, 149, 150],
    );
  });
});
