import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, it } from "vitest";
import { openDemoDb, restingAsk } from "../../../support/exchange/demo-db.ts";
import { Exchange } from "../../application/index.ts";
import { createKeyVault, generateApiKeyPair, parseServerKey } from "../auth/index.ts";
import { MarketData } from "../marketdata/market-data.ts";
import { DAY_US } from "../marketdata/rolling-window.ts";
import { createCommitter, type Db, exchangeStore } from "../store/index.ts";
import { TickerFeed } from "./tickers.ts";

describe("TickerFeed", () => {
  let dir: string;
  let db: Db;
  let exchange: Exchange;
  let marketData: MarketData;
  const wallUs = () => Math.floor((performance.timeOrigin + performance.now()) * 1000);
  let nowUs = wallUs();
  /** The pairs whose market data a tick read, i.e. whose ticker it built. */
  const read: string[] = [];

  beforeAll(async () => {
    ({ dir, db } = await openDemoDb("tickers-"));
    exchange = await Exchange.open({
      store: exchangeStore(db),
      committer: createCommitter(db),
      vault: createKeyVault(parseServerKey("44".repeat(32))),
      generateKeyPair: generateApiKeyPair,
      onFatal: (error) => {
        throw error;
      },
    });
    marketData = await MarketData.open(exchange, () => nowUs);
    const snapshot = marketData.snapshot.bind(marketData);
    marketData.snapshot = (pair) => {
      read.push(pair.row.code);
      return snapshot(pair);
    };
  });
  afterAll(async () => {
    await exchange?.close();
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("rebuilds only the tickers whose book, deals or 24-hour window changed since the last tick", async () => {
    const feed = new TickerFeed(exchange, marketData);
    const everyone = () => true;
    const tick = () => {
      read.length = 0;
      const envelopes = feed.tick(everyone, Math.floor(nowUs / 1000));
      return { built: [...read], streams: envelopes.map((e) => e.stream) };
    };
    const active = [...exchange.reference.pairs.values()].filter((p) => p.row.active).map((p) => p.row.code);
    assert.ok(active.length >= 2, "the demo has several pairs");
    assert.deepEqual(tick().built, active, "the first tick builds every ticker");

    for (let second = 1; second <= 3; second++) {
      nowUs += 1_000_000;
      // Before, every tick rebuilt every ticker (a snapshot, formatting, JSON) only to compare it.
      assert.deepEqual(tick(), { built: [], streams: [] }, `a quiet second ${second} builds nothing`);
    }

    const { buyer } = await restingAsk(exchange); // ALPHA_USDT's book changes
    assert.deepEqual(tick(), { built: ["ALPHA_USDT"], streams: ["ALPHA_USDT@ticker", "!ticker@arr"] });
    assert.deepEqual(tick().built, []);

    const order = { currencyPairCode: "ALPHA_USDT", isBid: true, type: "limit", amount: "2", price: "0.5" } as const;
    const before = wallUs();
    await exchange.placeOrder(buyer.id, order); // a deal, stamped between before and after
    const after = wallUs();
    assert.deepEqual(tick(), { built: ["ALPHA_USDT"], streams: ["ALPHA_USDT@ticker", "!ticker@arr"] });

    nowUs = before + DAY_US - 1_000_000;
    assert.deepEqual(tick().built, [], "the deal is still inside the 24-hour window");
    nowUs = after + DAY_US + 1_000_000;
    const expired = tick();
    assert.deepEqual(expired.built, ["ALPHA_USDT"], "the deal left the window: volume and 24 h price may change");
    assert.deepEqual(expired.streams, ["ALPHA_USDT@ticker", "!ticker@arr"]);
    assert.deepEqual(tick().built, []);
  });

  it("builds only the tickers someone listens to, and sends a rebuilt ticker only when its fields changed", async () => {
    const feed = new TickerFeed(exchange, marketData);
    read.length = 0;
    assert.deepEqual(
      feed.tick((stream) => stream === "BETA_USDT@ticker", 0).map((e) => e.stream),
      ["BETA_USDT@ticker"],
    );
    assert.deepEqual(read, ["BETA_USDT"]);
    const { seller } = await restingAsk(exchange);
    const far = { currencyPairCode: "ALPHA_USDT", isBid: false, type: "limit", amount: "1", price: "5" } as const;
    read.length = 0;
    feed.tick(() => true, 0);
    await exchange.placeOrder(seller.id, far); // the book changes below its top: the ticker does not
    read.length = 0;
    assert.deepEqual(
      feed.tick(() => true, 0),
      [],
    );
    assert.deepEqual(read, ["ALPHA_USDT"]);
  });
});
