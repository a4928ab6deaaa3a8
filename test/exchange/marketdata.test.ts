/**
 * Public market data ({base_url}) and the aggregator namespace over real HTTP, with every deal made
 * by real matched orders, on PGlite and (with DATABASE_URL) PostgreSQL. Expected values are derived
 * from what the test traded (and from /api/deals, checked first against the trades), never read
 * back from the endpoint under test.
 */
import assert from "node:assert/strict";
import { afterAll, beforeAll, describe, it } from "vitest";
import { seedFixtureBeforeLoad } from "../../support/exchange/fixture-market.ts";
import { startExchange, type RunningExchange } from "../../exchange/server/start.ts";
import { backendKinds, createBackend, type Backend } from "../../support/exchange/backends.ts";
import { SigningClient, type Credentials } from "../../support/exchange/signing-client.ts";

const quiet = () => {};
const PAIR = "ALPHA_USDT";

/** Exact decimal text of a JSON number as the server wrote it (the raw response text keeps it). */
const cents = (value: number) => Math.round(value * 10_000);

for (const kind of backendKinds()) {
  describe(`market data on ${kind}`, () => {
    let backend: Backend;
    let server: RunningExchange;
    let api: SigningClient;
    let maker: Credentials;
    let taker: Credentials;
    let outsider: Credentials;
    /** What the test traded, in order: price and amount (both x10^4 integers), and the taker's side. */
    const trades: { price: number; amount: number; isBuy: boolean }[] = [];
    const get = (path: string) => api.admin("GET", path);
    const expectError = (
      res: { status: number; body: any; text: string },
      status: number,
      code: string,
      mentions?: string,
    ) => {
      assert.equal(res.status, status, res.text);
      assert.equal(res.body.code, code, res.text);
      if (mentions) assert.match(res.body.message, new RegExp(mentions));
    };
    const place = async (who: Credentials, body: object) => {
      const res = await api.signed(who, "POST", "/api/orders", body);
      assert.equal(res.status, 201, res.text);
      return res.body;
    };

    beforeAll(async () => {
      backend = await createBackend(kind);
      server = await startExchange(backend.env, {
        log: quiet,
        beforeLoad: seedFixtureBeforeLoad,
      });
      api = new SigningClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!);
      maker = await api.user(0, { ALPHA: "100000", USDT: "100000" });
      taker = await api.user(0, { ALPHA: "100000", USDT: "100000" });
      outsider = await api.user(0, { USDT: "10" });
      // Four trades: two taker buys, two taker sells, at different prices.
      const script = [
        { makerAsk: true, price: "0.5", amount: "10" },
        { makerAsk: true, price: "0.55", amount: "4" },
        { makerAsk: false, price: "0.45", amount: "6" },
        { makerAsk: false, price: "0.4", amount: "20" },
      ];
      for (const step of script) {
        await place(maker, { isBid: !step.makerAsk, currencyPairCode: PAIR, amount: step.amount, price: step.price });
        const fill = await place(taker, {
          isBid: step.makerAsk,
          currencyPairCode: PAIR,
          amount: step.amount,
          price: step.price,
          timeInForce: "IOC",
        });
        assert.equal(fill.status, "filled");
        trades.push({ price: cents(Number(step.price)), amount: cents(Number(step.amount)), isBuy: step.makerAsk });
      }
      // A resting book: bids 0.30 (two orders, one level) and 0.29; asks 0.60 and 0.61.
      await place(maker, { isBid: true, currencyPairCode: PAIR, amount: "5", price: "0.3" });
      await place(outsider, { isBid: true, currencyPairCode: PAIR, amount: "7", price: "0.3" });
      await place(maker, { isBid: true, currencyPairCode: PAIR, amount: "4", price: "0.29" });
      await place(maker, { isBid: false, currencyPairCode: PAIR, amount: "2", price: "0.6" });
      await place(maker, { isBid: false, currencyPairCode: PAIR, amount: "8.5", price: "0.61" });
    });

    afterAll(async () => {
      await server?.close();
      await backend?.cleanup();
    });

    describe("GET /api/deals", () => {
      it("lists the trades newest first, with exact fields and null isUserBuyer on a public call", async () => {
        const res = await get(`/api/deals?currencyPairCode=${PAIR}`);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.length, trades.length);
        const expected = [...trades].reverse();
        res.body.forEach((deal: any, i: number) => {
          assert.match(deal.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
          assert.match(deal.dealDateUtc, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{4,7}Z$/);
          assert.equal(deal.currencyPairCode, PAIR);
          assert.equal(cents(deal.price), expected[i].price);
          assert.equal(cents(deal.volume), expected[i].amount);
          assert.equal(deal.isBuy, expected[i].isBuy);
          assert.equal(deal.isUserBuyer, null);
        });
        const dates = res.body.map((d: any) => d.dealDateUtc);
        assert.deepEqual(dates, [...dates].sort().reverse());
      });

      it("fills isUserBuyer on signed calls: true for the buyer, false for the seller, null for others", async () => {
        const forTaker = await api.signed(taker, "GET", `/api/deals?currencyPairCode=${PAIR}`);
        const forMaker = await api.signed(maker, "GET", `/api/deals?currencyPairCode=${PAIR}`);
        const forOutsider = await api.signed(outsider, "GET", `/api/deals?currencyPairCode=${PAIR}`);
        assert.equal(forTaker.status, 200, forTaker.text);
        assert.deepEqual(
          forTaker.body.map((d: any) => d.isUserBuyer),
          forTaker.body.map((d: any) => d.isBuy),
        );
        assert.deepEqual(
          forMaker.body.map((d: any) => d.isUserBuyer),
          forMaker.body.map((d: any) => !d.isBuy),
        );
        assert.deepEqual(
          forOutsider.body.map((d: any) => d.isUserBuyer),
          forOutsider.body.map(() => null),
        );
        const bad = await api.signed(taker, "GET", `/api/deals?currencyPairCode=${PAIR}`, undefined, {
          tamper: (h) => (h["API-Signature"] = "0".repeat(64)),
        });
        expectError(bad, 401, "UNAUTHORIZED");
      });

      it("pages with pageNumber and pageSize, and bounds by sinceDate and endDate inclusively", async () => {
        const all = (await get(`/api/deals?currencyPairCode=${PAIR}`)).body;
        const page2 = (await get(`/api/deals?currencyPairCode=${PAIR}&pageSize=3&pageNumber=2`)).body;
        assert.deepEqual(
          page2.map((d: any) => d.id),
          all.slice(3, 6).map((d: any) => d.id),
        );
        const noZ = (iso: string) => iso.replace(/Z$/, "");
        const one = all[1].dealDateUtc;
        const exact = (await get(`/api/deals?currencyPairCode=${PAIR}&sinceDate=${noZ(one)}&endDate=${noZ(one)}`)).body;
        assert.deepEqual(
          exact.map((d: any) => d.id),
          [all[1].id],
        );
        const since = (await get(`/api/deals?currencyPairCode=${PAIR}&sinceDate=${noZ(one)}`)).body;
        assert.deepEqual(
          since.map((d: any) => d.id),
          all.slice(0, 2).map((d: any) => d.id),
        );
        const until = (await get(`/api/deals?currencyPairCode=${PAIR}&endDate=${noZ(one)}`)).body;
        assert.deepEqual(
          until.map((d: any) => d.id),
          all.slice(1).map((d: any) => d.id),
        );
      });

      it("refuses bad parameters with 400", async () => {
        expectError(await get("/api/deals"), 400, "INVALID_PARAM", "currencyPairCode");
        expectError(await get("/api/deals?currencyPairCode=NOPE_USDT"), 400, "UNKNOWN_PAIR");
        expectError(await get(`/api/deals?currencyPairCode=${PAIR}&pageSize=101`), 400, "INVALID_PARAM", "pageSize");
        expectError(await get(`/api/deals?currencyPairCode=${PAIR}&pageSize=0`), 400, "INVALID_PARAM", "pageSize");
        expectError(await get(`/api/deals?currencyPairCode=${PAIR}&pageNumber=0`), 400, "INVALID_PARAM", "pageNumber");
        expectError(await get(`/api/deals?currencyPairCode=${PAIR}&pageNumber=x`), 400, "INVALID_PARAM", "pageNumber");
        expectError(
          await get(`/api/deals?currencyPairCode=${PAIR}&sinceDate=yesterday`),
          400,
          "INVALID_PARAM",
          "sinceDate",
        );
        expectError(
          await get(`/api/deals?currencyPairCode=${PAIR}&sinceDate=2026-02-30T00:00:00`),
          400,
          "INVALID_PARAM",
          "sinceDate",
        );
        expectError(
          await get(`/api/deals?currencyPairCode=${PAIR}&sinceDate=2026-01-01T00:00:00%2B02:00`),
          400,
          "INVALID_PARAM",
          "sinceDate",
        );
        expectError(
          await get(`/api/deals?currencyPairCode=${PAIR}&sinceDate=2026-01-02T00:00:00&endDate=2026-01-01T00:00:00`),
          400,
          "INVALID_PARAM",
          "endDate",
        );
      });
    });

    describe("GET /api/tickers and /api/orderbook", () => {
      it("ticker: last price, price 24 h ago, change, base volume, best bid and ask", async () => {
        const res = await get(`/api/tickers?currencyPairCode=${PAIR}`);
        assert.equal(res.status, 200, res.text);
        const t = res.body;
        assert.equal(t.currencyPairCode, PAIR);
        assert.ok(
          Number.isInteger(t.timestamp) && Math.abs(t.timestamp - Date.now() / 1000) < 60,
          "timestamp in seconds",
        );
        assert.equal(cents(t.price), trades.at(-1)!.price);
        assert.equal(cents(t.price24hAgo), trades[0].price); // every trade is inside the 24 hours
        const change = ((trades.at(-1)!.price - trades[0].price) / trades[0].price) * 100;
        assert.equal(t.priceChangePercentage24h, Math.round(change * 100) / 100);
        assert.equal(
          cents(t.volume24h),
          trades.reduce((s, x) => s + x.amount, 0),
        );
        assert.equal(t.bidPrice, 0.3);
        assert.equal(t.askPrice, 0.6);
        expectError(await get("/api/tickers"), 400, "INVALID_PARAM", "currencyPairCode");
        expectError(await get("/api/tickers?currencyPairCode=NOPE_USDT"), 400, "UNKNOWN_PAIR");
      });

      it("order book: levels aggregated by price, bids best first then asks best first, quoteAmount exact, deprecated aliases", async () => {
        const res = await get(`/api/orderbook?currencyPairCode=${PAIR}`);
        assert.equal(res.status, 200, res.text);
        const view = res.body.map((l: any) => [l.isBid, l.price, l.amount, l.quoteAmount]);
        assert.deepEqual(view, [
          [true, 0.3, 12, 3.6],
          [true, 0.29, 4, 1.16],
          [false, 0.6, 2, 1.2],
          [false, 0.61, 8.5, 5.185],
        ]);
        for (const level of res.body) {
          assert.equal(level.currencyTo, level.amount);
          assert.equal(level.currencyFrom, level.quoteAmount);
        }
        assert.match(res.text, /"quoteAmount":5\.185/);
      });

      it("ticker and order book reflect a new order and a trade at once (their caches follow the book and the deals)", async () => {
        const trader = await api.user(0, { ETH: "1", USDT: "10000" });
        const ticker = async () => (await get("/api/tickers?currencyPairCode=ETH_USDT")).body;
        const book = async () =>
          (await get("/api/orderbook?currencyPairCode=ETH_USDT")).body.map((l: any) => [l.isBid, l.price, l.amount]);
        const before = await ticker();
        assert.deepEqual(await book(), []);
        const ask = await place(trader, { isBid: false, currencyPairCode: "ETH_USDT", amount: "0.5", price: "3000" });
        assert.deepEqual(await book(), [[false, 3000, 0.5]]);
        assert.equal((await ticker()).askPrice, 3000);
        await place(taker, {
          isBid: true,
          currencyPairCode: "ETH_USDT",
          amount: "0.2",
          price: "3000",
          timeInForce: "IOC",
        });
        const after = await ticker();
        assert.equal(after.price, 3000);
        assert.equal(after.volume24h, before.volume24h + 0.2);
        assert.deepEqual(await book(), [[false, 3000, 0.3]]);
        // A cancel empties the book again (and keeps ETH_USDT out of the aggregator's active pairs).
        assert.equal((await api.signed(trader, "DELETE", `/api/orders/${ask.id}`)).status, 200);
        assert.deepEqual(await book(), []);
        assert.equal((await ticker()).askPrice, 0);
      });

      it("order book: at most 40 levels a side", async () => {
        const whale = await api.user(0, { USDT: "1000" });
        for (let i = 0; i < 45; i++)
          await place(whale, {
            isBid: true,
            currencyPairCode: "BETA_USDT",
            amount: "10",
            price: (0.1 + i / 1000).toFixed(4),
          });
        const res = await get("/api/orderbook?currencyPairCode=BETA_USDT");
        assert.equal(res.body.filter((l: any) => l.isBid).length, 40);
        assert.equal(res.body[0].price, 0.144);
      });
    });

    describe("GET /api/ohlc", () => {
      const range = () => {
        const now = Date.now();
        const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19);
        return { start: iso(now - 3_600_000), end: iso(now + 3_600_000) };
      };

      it("rolls the trades into candles of every interval", async () => {
        const { start, end } = range();
        for (const interval of [
          "minute",
          "minutes3",
          "minutes5",
          "minutes15",
          "minutes30",
          "hour",
          "hour4",
          "day",
          "month",
          "year",
        ]) {
          const res = await get(`/api/ohlc?currencyPairCode=${PAIR}&interval=${interval}&start=${start}&end=${end}`);
          assert.equal(res.status, 200, `${interval}: ${res.text}`);
          const candles = res.body as any[];
          assert.ok(candles.length >= 1 && candles.length <= 2, `${interval}: ${candles.length} candles`);
          for (const candle of candles) assert.match(candle.date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
          assert.deepEqual(
            candles.map((c) => c.date),
            [...candles.map((c) => c.date)].sort(),
          );
          const volumeBase = candles.reduce((s, c) => s + cents(c.volumeBase), 0);
          assert.equal(
            volumeBase,
            trades.reduce((s, t) => s + t.amount, 0),
            interval,
          );
          const volume = candles.reduce((s, c) => s + Math.round(c.volume * 1e8), 0);
          assert.equal(
            volume,
            trades.reduce((s, t) => s + t.price * t.amount, 0),
            interval,
          );
          assert.equal(Math.max(...candles.map((c) => cents(c.max))), Math.max(...trades.map((t) => t.price)));
          assert.equal(Math.min(...candles.map((c) => cents(c.min))), Math.min(...trades.map((t) => t.price)));
          assert.equal(cents(candles[0].open), trades[0].price);
          assert.equal(cents(candles.at(-1).close), trades.at(-1)!.price);
        }
      });

      it("refuses bad parameters with 400", async () => {
        const { start, end } = range();
        const q = (rest: string) => get(`/api/ohlc?currencyPairCode=${PAIR}&${rest}`);
        expectError(await q(`interval=week&start=${start}&end=${end}`), 400, "INVALID_PARAM", "interval");
        expectError(await q(`start=${start}&end=${end}`), 400, "INVALID_PARAM", "interval");
        expectError(await q(`interval=hour&end=${end}`), 400, "INVALID_PARAM", "start");
        expectError(await q(`interval=hour&start=${start}`), 400, "INVALID_PARAM", "end");
        expectError(await q(`interval=hour&start=${end}&end=${start}`), 400, "INVALID_PARAM", "end");
        expectError(await q(`interval=hour&start=not-a-date&end=${end}`), 400, "INVALID_PARAM", "start");
        expectError(
          await q("interval=minute&start=2020-01-01T00:00:00&end=2026-01-01T00:00:00"),
          400,
          "INVALID_PARAM",
          "split",
        );
        expectError(
          await get(`/api/ohlc?currencyPairCode=NOPE_USDT&interval=hour&start=${start}&end=${end}`),
          400,
          "UNKNOWN_PAIR",
        );
      });

      it("survives a restart (the rollup is stored, not rebuilt in memory)", async () => {
        const { start, end } = range();
        const before = (await get(`/api/ohlc?currencyPairCode=${PAIR}&interval=hour&start=${start}&end=${end}`)).body;
        await server.close();
        server = await startExchange(backend.env, { log: quiet });
        api = new SigningClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!);
        assert.deepEqual(
          (await get(`/api/ohlc?currencyPairCode=${PAIR}&interval=hour&start=${start}&end=${end}`)).body,
          before,
        );
        const ticker = (await get(`/api/tickers?currencyPairCode=${PAIR}`)).body;
        assert.equal(
          cents(ticker.volume24h),
          trades.reduce((s, x) => s + x.amount, 0),
          "the 24 h window is reloaded too",
        );
      });
    });

    describe("reference data and healthcheck", () => {
      it("GET /api/currencies, /api/currencies/pairs, /api/currencies/commissions", async () => {
        const currencies = await get("/api/currencies");
        assert.deepEqual(currencies.body, ["USDT", "ETH", "ALPHA", "BETA", "GAMMA"]);
        const pairs = (await get("/api/currencies/pairs")).body;
        assert.deepEqual(
          pairs.find((p: any) => p.code === PAIR),
          { code: PAIR, digitsPrice: 4, digitsAmount: 2, minQuoteAmount: 1 },
        );
        const commissions = (await get("/api/currencies/commissions")).body as any[];
        const refill = commissions.find((c) => c.commissionTypeCode === "1");
        assert.deepEqual(refill.commissionType.code, "1");
        assert.equal(refill.commissionType.valueKey, "Refill");
        for (const c of commissions) {
          assert.match(c.commissionId, /^[0-9a-f-]{36}$/);
          assert.equal(typeof c.percent, "number");
          assert.equal(typeof c.minimum, "number");
          assert.equal(c.hashCode, `${c.commissionTypeCode}_${c.currencyCode ?? ""}_${c.currencyAdapterCode ?? ""}`);
        }
        assert.ok(!commissions.some((c) => c.percent === 0.0005), "tier rows are not default commissions");
      });

      it("GET /api/healthcheck is a JSON string with a four-part version", async () => {
        const res = await fetch(`${server.url}/api/healthcheck`);
        assert.equal(res.status, 200);
        assert.match((await res.json()) as string, /^\S+ v\d+\.\d+\.\d+\.\d+$/);
      });
    });

    describe("aggregator namespace", () => {
      const agg = (path: string) => get(`/api/marketdata/getaggregator${path}`);

      it("/tickers: active pairs with volume and a book, by ticker_id, 24 h figures, cached", async () => {
        const res = await agg("/tickers");
        assert.equal(res.status, 200, res.text);
        assert.match(res.headers.get("cache-control") ?? "", /max-age=([5-9]|\d\d+)/);
        assert.deepEqual(
          res.body.map((t: any) => t.ticker_id),
          [PAIR],
        ); // BETA_USDT has a book but no trade
        const t = res.body[0];
        assert.equal(t.base_currency, "ALPHA");
        assert.equal(t.target_currency, "USDT");
        assert.equal(cents(t.last_price), trades.at(-1)!.price);
        assert.equal(
          cents(t.base_volume),
          trades.reduce((s, x) => s + x.amount, 0),
        );
        assert.equal(
          Math.round(t.target_volume * 1e8),
          trades.reduce((s, x) => s + x.price * x.amount, 0),
        );
        assert.equal(t.bid, 0.3);
        assert.equal(t.ask, 0.6);
        assert.equal(cents(t.high), Math.max(...trades.map((x) => x.price)));
        assert.equal(cents(t.low), Math.min(...trades.map((x) => x.price)));
      });

      it("/asset: every currency keyed by symbol with limits and default fees", async () => {
        const res = await agg("/asset");
        assert.deepEqual(Object.keys(res.body).sort(), ["ALPHA", "BETA", "ETH", "GAMMA", "USDT"]);
        assert.deepEqual(res.body.USDT, {
          name: "Tether USD",
          unified_cryptoasset_id: 825,
          can_withdraw: true,
          can_deposit: true,
          min_withdraw: 5,
          max_withdraw: 1000000,
          maker_fee: 0.001,
          taker_fee: 0.002,
          daily_withdraw_limit: 2000000,
          withdraw_approval_threshold: 50000,
        });
      });

      it("/orderbook: [price, quantity] bids descending, asks ascending, depth per SPEC", async () => {
        const res = await agg(`/orderbook?ticker_id=${PAIR}&depth=0`);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.ticker_id, PAIR);
        assert.ok(Math.abs(res.body.timestamp - Date.now()) < 60_000, "timestamp in ms");
        assert.deepEqual(res.body.bids, [
          [0.3, 12],
          [0.29, 4],
        ]);
        assert.deepEqual(res.body.asks, [
          [0.6, 2],
          [0.61, 8.5],
        ]);
        // BETA_USDT has 45 bid levels (0.100 .. 0.144) from the order book test; 10 more below make 55.
        const deep = await api.user(0, { USDT: "100" });
        for (let i = 0; i < 10; i++)
          await place(deep, {
            isBid: true,
            currencyPairCode: "BETA_USDT",
            amount: "20",
            price: (0.05 + i / 1000).toFixed(4),
          });
        const beta = await agg("/orderbook?ticker_id=BETA_USDT");
        assert.equal(beta.body.bids.length, 50, "default depth 100 = 50 per side");
        assert.equal(beta.body.bids[49][0], 0.055, "the best 50, best first: 0.144 .. 0.100 then 0.059 .. 0.055");
        assert.equal((await agg("/orderbook?ticker_id=BETA_USDT&depth=0")).body.bids.length, 55);
        assert.equal((await agg("/orderbook?ticker_id=BETA_USDT&depth=200")).body.bids.length, 55);
        assert.equal((await agg("/orderbook?ticker_id=BETA_USDT&depth=100")).body.bids.length, 50);
        expectError(await agg("/orderbook"), 400, "INVALID_PARAM", "ticker_id");
        expectError(await agg(`/orderbook?ticker_id=${PAIR}&depth=50`), 400, "INVALID_PARAM", "depth");
        expectError(await agg(`/orderbook?ticker_id=${PAIR}&depth=abc`), 400, "INVALID_PARAM", "depth");
        expectError(await agg("/orderbook?ticker_id=NOPE_USDT"), 404, "NOT_FOUND");
      });

      it("/historical_trades: split by taker side, newest first, per-pair increasing trade ids", async () => {
        const res = await agg(`/historical_trades?ticker_id=${PAIR}`);
        assert.equal(res.status, 200, res.text);
        const buys = trades.filter((t) => t.isBuy).reverse();
        const sells = trades.filter((t) => !t.isBuy).reverse();
        assert.deepEqual(
          res.body.buy.map((t: any) => [cents(t.price), cents(t.base_volume), t.type]),
          buys.map((t) => [t.price, t.amount, "buy"]),
        );
        assert.deepEqual(
          res.body.sell.map((t: any) => [cents(t.price), cents(t.base_volume), t.type]),
          sells.map((t) => [t.price, t.amount, "sell"]),
        );
        const all = [...res.body.buy, ...res.body.sell].sort((a: any, b: any) => a.trade_id - b.trade_id);
        assert.deepEqual(
          all.map((t: any) => t.trade_id),
          [1, 2, 3, 4],
        );
        for (const t of all) {
          assert.equal(Math.round(t.target_volume * 1e8), cents(t.price) * cents(t.base_volume));
          assert.ok(Number.isInteger(t.trade_timestamp) && Math.abs(t.trade_timestamp - Date.now()) < 600_000);
        }
        for (const side of [res.body.buy, res.body.sell]) {
          const stamps = side.map((t: any) => t.trade_timestamp);
          assert.deepEqual(
            stamps,
            [...stamps].sort((a, b) => b - a),
          );
        }
        const onlySell = (await agg(`/historical_trades?ticker_id=${PAIR}&type=sell`)).body;
        assert.equal(onlySell.buy.length, 0);
        assert.equal(onlySell.sell.length, sells.length);
        const t0 = all[1].trade_timestamp;
        const window = (await agg(`/historical_trades?ticker_id=${PAIR}&start_time=${t0}&end_time=${t0}`)).body;
        assert.ok(
          [...window.buy, ...window.sell].some((t: any) => t.trade_id === all[1].trade_id),
          "inclusive bounds",
        );
        expectError(await agg("/historical_trades"), 400, "INVALID_PARAM", "ticker_id");
        expectError(await agg(`/historical_trades?ticker_id=${PAIR}&limit=7`), 400, "INVALID_PARAM", "limit");
        expectError(await agg(`/historical_trades?ticker_id=${PAIR}&type=both`), 400, "INVALID_PARAM", "type");
        expectError(
          await agg(`/historical_trades?ticker_id=${PAIR}&start_time=10&end_time=5`),
          400,
          "INVALID_PARAM",
          "start_time",
        );
        expectError(await agg("/historical_trades?ticker_id=NOPE_USDT"), 404, "NOT_FOUND");
      });
    });

    describe("OpenAPI", () => {
      it("/swagger/v1/swagger.json documents every endpoint, the signing headers and the deprecated aliases", async () => {
        const doc = (await get("/swagger/v1/swagger.json")).body;
        assert.match(doc.openapi, /^3\.0\./);
        for (const path of [
          "/api/tickers",
          "/api/orderbook",
          "/api/deals",
          "/api/ohlc",
          "/api/currencies",
          "/api/currencies/pairs",
          "/api/currencies/commissions",
          "/api/healthcheck",
          "/api/currencies/user/commissions",
          "/api/orders",
          "/api/orders/{id}",
          "/api/balances",
          "/api/withdrawals",
          "/api/marketdata/getaggregator/tickers",
          "/api/marketdata/getaggregator/asset",
          "/api/marketdata/getaggregator/orderbook",
          "/api/marketdata/getaggregator/historical_trades",
        ]) {
          assert.ok(doc.paths[path], `${path} is documented`);
        }
        const level = doc.paths["/api/orderbook"].get.responses["200"].content["application/json"].schema.items;
        assert.equal(level.properties.currencyTo.deprecated, true);
        assert.equal(level.properties.currencyFrom.deprecated, true);
        const placeParams = doc.paths["/api/orders"].post.parameters.map((p: any) => p.name);
        assert.ok(placeParams.includes("API-Signature"));
        const page = await fetch(`${server.url}/swagger`);
        assert.match(await page.text(), /\/api\/marketdata\/getaggregator\/historical_trades/);
      });
    });
  });
}

describe("rate limit of the public endpoints", () => {
  it("the 4th request in a minute from one IP is 429 RATE_LIMITED with Retry-After; the healthcheck and /api/ready are exempt", async () => {
    const backend = await createBackend("pglite", { RATE_LIMIT_PER_MINUTE: "3" });
    const server = await startExchange(backend.env, {
      log: quiet,
      beforeLoad: seedFixtureBeforeLoad,
    });
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await fetch(`${server.url}/api/currencies`)).status);
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      const limited = await fetch(`${server.url}/api/marketdata/getaggregator/asset`);
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get("retry-after")) > 0);
      assert.equal(((await limited.json()) as any).code, "RATE_LIMITED");
      for (let i = 0; i < 5; i++) assert.equal((await fetch(`${server.url}/api/healthcheck`)).status, 200);
      for (let i = 0; i < 5; i++) assert.equal((await fetch(`${server.url}/api/ready`)).status, 200);
    } finally {
      await server.close();
      await backend.cleanup();
    }
  });
});
