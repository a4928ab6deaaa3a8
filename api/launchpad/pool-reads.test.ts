import assert from "node:assert/strict";
import { afterAll, beforeAll, describe, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../support/api/database.ts";
import {
  addressOf,
  hashOf,
  insertHoldings,
  insertSwap,
  insertToken,
  setChainHead,
  type SwapFixture,
} from "../../support/api/fixtures.ts";
import { BURN_ADDRESS } from "../../indexer/holders.ts";
import { createEcosystemApi } from "../index.ts";

/** GET /api/launchpad/tokens/:id/trades, /candles and /holders on an in-memory database. */

const NOW = 2_000_000_040; // 2033-05-18T03:34:00Z: a whole minute
const E18 = 10n ** 18n;
const E6 = 10n ** 6n;

let database: TestDatabase;
let app: ReturnType<typeof createEcosystemApi>;

async function get(path: string) {
  const res = await app.request(path);
  return { status: res.status, body: (await res.json()) as any };
}

// ALPHA (token 1, stable pool): 45 swaps, 1 a block, in blocks 101..145, 7 s apart, inserted
// in reverse so the numbering in the pool cannot lean on insertion order. Even swaps buy 3 tokens
// for n USDC, odd ones sell 2 tokens for n USDC. Block 146 holds two more swaps (log index 5 then 2).
const alphaSwaps: SwapFixture[] = Array.from({ length: 45 }, (_, i) => ({
  n: i + 1,
  tokenN: 1,
  isBuy: i % 2 === 0,
  amountIn: i % 2 === 0 ? BigInt(i + 1) * E6 : 2n * E18,
  amountOut: i % 2 === 0 ? 3n * E18 : BigInt(i + 1) * E6,
  timestamp: NOW - 1_000 + 7 * i,
  block: 101 + i,
}));
const sameBlock: SwapFixture[] = [
  { n: 100, tokenN: 1, isBuy: true, amountIn: 10n * E6, amountOut: 4n * E18, timestamp: NOW, block: 146, logIndex: 5 },
  { n: 101, tokenN: 1, isBuy: false, amountIn: E18, amountOut: 2n * E6, timestamp: NOW, block: 146, logIndex: 2 },
];

beforeAll(async () => {
  database = await createTestDatabase();
  const db = database.db;
  await insertToken(db, { n: 1, symbol: "ALPHA", spawnedAt: NOW - 5_000, holders: 4 });
  await insertToken(db, { n: 2, symbol: "BETA", side: "WRAPPED_NATIVE", spawnedAt: NOW - 5_000 });
  await insertToken(db, { n: 3, symbol: "GAMMA", spawnedAt: NOW - 5_000 });
  for (const s of [...alphaSwaps].reverse()) await insertSwap(db, s);
  for (const s of sameBlock) await insertSwap(db, s);
  // BETA: 2 wrapped native for 3 tokens, in the previous calendar month and year.
  await insertSwap(db, {
    n: 200,
    tokenN: 2,
    isBuy: true,
    amountIn: 2n * E18,
    amountOut: 3n * E18,
    timestamp: Date.UTC(2033, 3, 30, 23, 59, 59) / 1000,
    block: 50,
  });
  // ALPHA's balances (1,000,000,000 supply): the pool, the creator (account 501), the burn address,
  // three others of which two tie, and one account that sold out (balance 0, not listed).
  await insertHoldings(db, 1, [
    [addressOf(1001), 600_000_000n * E18],
    [addressOf(501), 250_000_000n * E18],
    [addressOf(0xb), 50_000_000n * E18],
    [addressOf(0xa), 50_000_000n * E18],
    [BURN_ADDRESS, 1n],
    [addressOf(0xc), 49_999_999n * E18 - 1n],
    [addressOf(0xd), 0n],
  ]);
  await setChainHead(db, NOW);
  app = createEcosystemApi({ db, now: () => NOW, rateLimitPerMinute: 10_000 });
});

afterAll(() => database.close());

describe("GET /api/launchpad/tokens/:id/trades", () => {
  it("lists the pool's swaps newest first (block, then log index), with exact amounts and price", async () => {
    const { status, body } = await get("/api/launchpad/tokens/101/trades?pageSize=4");
    assert.equal(status, 200);
    assert.deepEqual([body.page, body.pageSize, body.totalItems], [1, 4, 47]);
    assert.deepEqual(body.items.slice(0, 3), [
      {
        txHash: hashOf(10_100),
        logIndex: 5,
        blockNumber: 146,
        timestamp: NOW,
        trader: addressOf(700),
        side: "buy",
        tokenAmount: "4",
        pairAmount: "10",
        price: "2.500000000000000000",
      },
      {
        txHash: hashOf(10_101),
        logIndex: 2,
        blockNumber: 146,
        timestamp: NOW,
        trader: addressOf(701),
        side: "sell",
        tokenAmount: "1",
        pairAmount: "2",
        price: "2.000000000000000000",
      },
      {
        txHash: hashOf(10_045),
        logIndex: 0,
        blockNumber: 145,
        timestamp: NOW - 1_000 + 7 * 44,
        trader: addressOf(645),
        side: "buy",
        tokenAmount: "3",
        pairAmount: "45",
        price: "15.000000000000000000",
      },
    ]);
    // 44 USDC for 2 tokens; a price that does not terminate (1 USDC for 3 tokens) is truncated.
    assert.deepEqual(
      [body.items[3].side, body.items[3].pairAmount, body.items[3].price],
      ["sell", "44", "22.000000000000000000"],
    );
    const first = (await get("/api/launchpad/tokens/101/trades?pageSize=100")).body.items;
    assert.equal(first.at(-1).price, "0.333333333333333333");
  });

  it("pages through every swap once, to an empty page past the end", async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const { body } = await get(`/api/launchpad/tokens/${addressOf(1)}/trades?page=${page}&pageSize=20`);
      assert.equal(body.totalItems, 47);
      assert.equal(body.items.length, page < 3 ? 20 : 7);
      seen.push(...body.items.map((t: any) => `${t.blockNumber}:${t.logIndex}`));
    }
    const chainOrder = [...alphaSwaps, ...sameBlock]
      .map((s) => [s.block, s.logIndex ?? 0] as const)
      .sort((a, b) => b[0] - a[0] || b[1] - a[1])
      .map(([block, log]) => `${block}:${log}`);
    assert.deepEqual(seen, chainOrder);
    const past = await get("/api/launchpad/tokens/101/trades?page=4&pageSize=20");
    assert.deepEqual([past.body.items, past.body.totalItems], [[], 47]);
    const far = await get("/api/launchpad/tokens/101/trades?page=1000000000&pageSize=100");
    assert.deepEqual(far.body.items, []);
  });

  it("prices a wrapped-native pool in wrapped native per token", async () => {
    const { body } = await get("/api/launchpad/tokens/102/trades");
    assert.deepEqual(
      body.items.map((t: any) => [t.side, t.tokenAmount, t.pairAmount, t.price]),
      [["buy", "3", "2", "0.666666666666666666"]],
    );
  });

  it("answers a pool without swaps with an empty page", async () => {
    const { body } = await get("/api/launchpad/tokens/103/trades");
    assert.deepEqual(body, { items: [], page: 1, pageSize: 20, totalItems: 0 });
  });
});

describe("GET /api/launchpad/tokens/:id/candles", () => {
  const candles = async (query: string, id = "101") => get(`/api/launchpad/tokens/${id}/candles?${query}`);

  it("answers SPEC.md's candle shape, oldest first, from the rollup", async () => {
    // The minute of NOW holds both swaps of block 146; in chain order log index 2 (the sell at 2.0)
    // opens it and log index 5 (the buy at 2.5) closes it.
    const { status, body } = await candles(`interval=minute&start=${NOW}&end=${NOW}`);
    assert.equal(status, 200);
    assert.deepEqual(body, [
      {
        date: "2033-05-18T03:34:00",
        time: NOW,
        open: "2.000000000000000000",
        max: "2.500000000000000000",
        min: "2.000000000000000000",
        close: "2.500000000000000000",
        volume: "12",
        volumeBase: "5",
      },
    ]);
  });

  it("folds every swap of a bucket: an hour's candle holds the whole history of ALPHA", async () => {
    const { body } = await candles(`interval=hour&start=${NOW - 3_600}&end=${NOW}`);
    assert.equal(body.length, 1);
    const all = [...alphaSwaps, ...sameBlock];
    const volume = all.reduce((sum, s) => sum + (s.isBuy ? s.amountIn : s.amountOut), 0n);
    const volumeBase = all.reduce((sum, s) => sum + (s.isBuy ? s.amountOut : s.amountIn), 0n);
    assert.deepEqual(body[0], {
      date: "2033-05-18T03:00:00",
      time: NOW - 34 * 60,
      open: "0.333333333333333333",
      max: "22.000000000000000000",
      min: "0.333333333333333333",
      close: "2.500000000000000000",
      volume: (volume / E6).toString(),
      volumeBase: (volumeBase / E18).toString(),
    });
  });

  it("includes a bucket that starts before start and leaves out empty buckets", async () => {
    const { body } = await candles(`interval=minutes5&start=${NOW - 1_000 + 1}&end=${NOW}`);
    // ALPHA's 45 swaps run from 03:17:20 to 03:22:28, block 146's at 03:34: nothing from 03:25 to 03:30.
    assert.deepEqual(
      body.map((c: any) => c.date),
      ["2033-05-18T03:15:00", "2033-05-18T03:20:00", "2033-05-18T03:30:00"],
    );
    const later = await candles(`interval=minute&start=${NOW + 60}&end=${NOW + 600}`);
    assert.deepEqual(later.body, []);
  });

  it("takes ISO 8601 UTC times as /api/ohlc does, and Unix seconds", async () => {
    const iso = await candles("interval=minutes15&start=2033-05-18T03:00:00&end=2033-05-18T04:00:00Z");
    const unix = await candles(`interval=minutes15&start=${NOW - 34 * 60}&end=${NOW - 34 * 60 + 3_600}`);
    assert.equal(iso.status, 200);
    assert.deepEqual(iso.body, unix.body);
    assert.deepEqual(
      iso.body.map((c: any) => c.date),
      ["2033-05-18T03:15:00", "2033-05-18T03:30:00"],
    );
  });

  it("cuts calendar months and years in UTC", async () => {
    const month = await candles("interval=month&start=2033-01-01&end=2033-12-31", "102");
    assert.deepEqual(
      month.body.map((c: any) => [c.date, c.open, c.volume]),
      [["2033-04-01T00:00:00", "0.666666666666666666", "2"]],
    );
    const year = await candles("interval=year&start=2030-01-01&end=2040-01-01", "101");
    assert.deepEqual(
      year.body.map((c: any) => c.date),
      ["2033-01-01T00:00:00"],
    );
  });

  it("refuses what /api/ohlc refuses, naming the parameter", async () => {
    const cases: [string, string][] = [
      [`interval=week&start=${NOW}&end=${NOW}`, "interval"],
      [`start=${NOW}&end=${NOW}`, "interval"],
      [`interval=hour&end=${NOW}`, "start"],
      [`interval=hour&start=${NOW}`, "end"],
      [`interval=hour&start=yesterday&end=${NOW}`, "start"],
      [`interval=hour&start=${NOW}&end=2033-02-30`, "end"],
      [`interval=hour&start=${NOW}&end=2033-05-18T03:00:00+02:00`, "end"],
      [`interval=hour&start=${NOW}&end=${NOW - 1}`, "end"],
      // 5,001 minutes.
      [`interval=minute&start=${NOW}&end=${NOW + 5_000 * 60}`, "end"],
    ];
    for (const [query, param] of cases) {
      const { status, body } = await candles(query);
      assert.equal(status, 400, query);
      assert.equal(body.code, "INVALID_PARAM", query);
      assert.ok(body.message.startsWith(`${param}: `), `${query}: ${body.message}`);
    }
    assert.equal((await candles(`interval=minute&start=${NOW}&end=${NOW + 4_999 * 60}`)).status, 200);
    assert.equal((await candles(`interval=hour&start=${NOW}&end=${NOW}`, addressOf(88))).status, 404);
  });
});

describe("GET /api/launchpad/tokens/:id/holders", () => {
  it("lists every balance, largest first, ties by address, with the pool, creator and burn address labelled", async () => {
    const { status, body } = await get("/api/launchpad/tokens/101/holders");
    assert.equal(status, 200);
    assert.equal(body.totalItems, 6);
    assert.deepEqual(body.items, [
      { address: addressOf(1001), balance: "600000000", share: "0.6", label: "pool" },
      { address: addressOf(501), balance: "250000000", share: "0.25", label: "creator" },
      { address: addressOf(0xa), balance: "50000000", share: "0.05", label: null },
      { address: addressOf(0xb), balance: "50000000", share: "0.05", label: null },
      {
        address: addressOf(0xc),
        balance: "49999998.999999999999999999",
        share: "0.049999998999999999",
        label: null,
      },
      { address: BURN_ADDRESS, balance: "0.000000000000000001", share: "0", label: "burn" },
    ]);
  });

  it("pages in the same order", async () => {
    const all = (await get("/api/launchpad/tokens/101/holders")).body.items;
    const pages = [];
    for (let page = 1; page <= 4; page++) {
      pages.push(...(await get(`/api/launchpad/tokens/${addressOf(1)}/holders?page=${page}&pageSize=2`)).body.items);
    }
    assert.deepEqual(pages, all);
  });

  it("answers 404 for an unknown token and 400 for a bad page", async () => {
    assert.equal((await get(`/api/launchpad/tokens/${addressOf(88)}/holders`)).status, 404);
    for (const suffix of ["trades", "holders"]) {
      const { status, body } = await get(`/api/launchpad/tokens/101/${suffix}?pageSize=101`);
      assert.deepEqual([status, body.code], [400, "INVALID_PARAM"]);
      assert.match(body.message, /^pageSize: /);
    }
  });
});
