import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, it } from "vitest";
import { openDemoDb, restingAsk } from "../../../support/exchange/demo-db.ts";
import { Exchange } from "../../application/index.ts";
import { createKeyVault, generateApiKeyPair, parseServerKey } from "../auth/index.ts";
import { MarketData } from "../marketdata/market-data.ts";
import type { TradePoint, WindowStats } from "../marketdata/rolling-window.ts";
import { price24hAgo } from "../marketdata/ticker.ts";
import { createCommitter, type Db, exchangeStore } from "../store/index.ts";
import { marketSummary, SUMMARY_CACHE_MS } from "./summary.ts";

const trade = (priceTicks: number): TradePoint => ({ timeUs: 0, priceTicks, lots: 1, quoteUnits: 1n });
const stats = (over: Partial<WindowStats>): WindowStats => ({
  last: null,
  priceBefore: null,
  first: null,
  volumeLots: 0n,
  volumeQuote: 0n,
  high: null,
  low: null,
  count: 0,
  ...over,
});

it("the 24 h reference price: the trade before the window, else the first inside, else the last, else none", () => {
  assert.equal(price24hAgo(stats({ priceBefore: 7, first: trade(8), last: trade(9) })), 7);
  assert.equal(price24hAgo(stats({ first: trade(8), last: trade(9) })), 8);
  assert.equal(price24hAgo(stats({ last: trade(9) })), 9);
  assert.equal(price24hAgo(stats({})), null);
});

describe("the summary's cache", () => {
  let dir: string;
  let db: Db;
  let exchange: Exchange;
  let marketData: MarketData;

  beforeAll(async () => {
    ({ dir, db } = await openDemoDb("summary-"));
    exchange = await Exchange.open({
      store: exchangeStore(db),
      committer: createCommitter(db),
      vault: createKeyVault(parseServerKey("45".repeat(32))),
      generateKeyPair: generateApiKeyPair,
      onFatal: (error) => {
        throw error;
      },
    });
    marketData = await MarketData.open(exchange);
  });
  afterAll(async () => {
    await exchange?.close();
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("keeps the body for book changes within 5 s, but a deal on any pair shows in the next answer", async () => {
    let nowMs = 1_000_000;
    const summary = marketSummary({ exchange, marketData, nowMs: () => nowMs });
    const app = new Hono().get("/summary", (c) => summary.answer(c));
    const alpha = async () => {
      const rows = (await (await app.request("/summary")).json()) as {
        trading_pairs: string;
        last_price: number | null;
        lowest_ask: number | null;
        base_volume: number;
      }[];
      return rows.find((r) => r.trading_pairs === "ALPHA_USDT")!;
    };
    const before = await alpha();
    assert.equal(before.last_price, null, "the demo's ALPHA_USDT never traded");

    const { buyer } = await restingAsk(exchange); // an ask at 0.5: the book moves, no deal
    nowMs += 1_000;
    assert.deepEqual(await alpha(), before, "a book change alone waits for the 5 s cache");

    const order = { currencyPairCode: "ALPHA_USDT", isBid: true, type: "limit", amount: "2", price: "0.5" } as const;
    await exchange.placeOrder(buyer.id, order);
    nowMs += 1_000; // 2 s after the body was made: it was served until this deal
    const after = await alpha();
    assert.equal(after.last_price, 0.5, "the deal shows at once, as on /api/tickers");
    assert.equal(after.base_volume, 2);
    assert.equal(after.lowest_ask, 0.5, "rebuilt whole: the book is read again too");

    nowMs += SUMMARY_CACHE_MS;
    assert.deepEqual(await alpha(), after, "without a deal the body is only rebuilt, the same");
  });
});
