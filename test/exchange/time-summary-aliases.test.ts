/**
 * SPEC.md's planned v1.x endpoints over real HTTP: GET /api/time, the all-pairs summary (at
 * /api/summary and the aggregator's /summary) and the /v1/spot/market/* aliases of the public
 * routes (Versioning 2 and 5). Aliases are held to the canonical route's answers, errors, signing
 * and rate limit; the summary's numbers to what the test traded and to /api/tickers and
 * /api/orderbook.
 */
import assert from "node:assert/strict";
import { afterAll, beforeAll, describe, it } from "vitest";
import { signRequest } from "../../exchange/adapters/auth/index.ts";
import { seedFixtureBeforeLoad } from "../../support/exchange/fixture-market.ts";
import { startExchange, type RunningExchange } from "../../exchange/server/start.ts";
import { backendKinds, createBackend, type Backend } from "../../support/exchange/backends.ts";
import { SigningClient, type Credentials } from "../../support/exchange/signing-client.ts";

const quiet = () => {};
const PAIR = "ALPHA_USDT";
const ALIAS = "/v1/spot/market";
/** x10^4 integers of decimals with at most 4 digits (prices and amounts of PAIR). */
const e4 = (value: number) => Math.round(value * 10_000);

/** Every public route and its alias, with the query each is called with here. */
const aliased = (start: string, end: string) => [
  `/tickers?currencyPairCode=${PAIR}`,
  `/orderbook?currencyPairCode=${PAIR}`,
  `/deals?currencyPairCode=${PAIR}`,
  `/deals?currencyPairCode=${PAIR}&pageSize=2&pageNumber=2`,
  `/ohlc?currencyPairCode=${PAIR}&interval=minute&start=${start}&end=${end}`,
  "/currencies",
  "/currencies/pairs",
  "/currencies/commissions",
  "/summary",
];

for (const kind of backendKinds()) {
  describe(`time, summary and /v1/spot/market aliases on ${kind}`, () => {
    let backend: Backend;
    let server: RunningExchange;
    let api: SigningClient;
    let maker: Credentials;
    let taker: Credentials;
    /** What the test traded: price and amount as x10^4 integers. */
    const trades: { price: number; amount: number }[] = [];
    const get = (path: string) => api.admin("GET", path);
    const place = async (who: Credentials, body: object) => {
      const res = await api.signed(who, "POST", "/api/orders", { currencyPairCode: PAIR, ...body });
      assert.equal(res.status, 201, res.text);
      return res.body;
    };

    beforeAll(async () => {
      backend = await createBackend(kind);
      server = await startExchange(backend.env, { log: quiet, beforeLoad: seedFixtureBeforeLoad });
      api = new SigningClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!);
      maker = await api.user(0, { ALPHA: "100000", USDT: "100000" });
      taker = await api.user(0, { ALPHA: "100000", USDT: "100000" });
      // Three trades (the last one lowest, so last, high and low all differ), then a resting book.
      for (const step of [
        { makerAsk: true, price: "0.5", amount: "10" },
        { makerAsk: true, price: "0.55", amount: "4" },
        { makerAsk: false, price: "0.45", amount: "6.5" },
      ]) {
        await place(maker, { isBid: !step.makerAsk, amount: step.amount, price: step.price });
        const fill = await place(taker, {
          isBid: step.makerAsk,
          amount: step.amount,
          price: step.price,
          timeInForce: "IOC",
        });
        assert.equal(fill.status, "filled");
        trades.push({ price: e4(Number(step.price)), amount: e4(Number(step.amount)) });
      }
      await place(maker, { isBid: true, amount: "5", price: "0.3" });
      await place(maker, { isBid: true, amount: "4", price: "0.29" });
      await place(maker, { isBid: false, amount: "2", price: "0.6" });
    });

    afterAll(async () => {
      await server?.close();
      await backend?.cleanup();
    });

    describe("GET /api/time", () => {
      it("answers {serverTime} in epoch ms from the server's clock, not cached", async () => {
        for (const path of ["/api/time", `${ALIAS}/time`]) {
          const before = Date.now();
          const res = await get(path);
          const after = Date.now();
          assert.equal(res.status, 200, res.text);
          assert.deepEqual(Object.keys(res.body), ["serverTime"]);
          assert.ok(Number.isSafeInteger(res.body.serverTime), res.text);
          assert.ok(
            res.body.serverTime >= before && res.body.serverTime <= after,
            `${before} <= ${res.text} <= ${after}`,
          );
          assert.equal(res.headers.get("cache-control"), "no-store");
          assert.ok(res.headers.get("ratelimit-limit"), "rate-limited like the other public endpoints");
        }
      });
    });

    describe("summary", () => {
      it("/api/summary, its alias and the aggregator's /summary answer the same body, cached 5 s", async () => {
        const answers = await Promise.all(
          ["/api/summary", `${ALIAS}/summary`, "/api/marketdata/getaggregator/summary"].map(get),
        );
        for (const res of answers) {
          assert.equal(res.status, 200, res.text);
          assert.equal(res.headers.get("cache-control"), "public, max-age=5");
          assert.equal(res.text, answers[0].text);
        }
      });

      it("one object per active pair, sorted; a pair without trades has nulls and zero volume", async () => {
        const summary = (await get("/api/summary")).body;
        const pairs = (await get("/api/currencies/pairs")).body.map((p: any) => p.code);
        assert.deepEqual(
          summary.map((s: any) => s.trading_pairs),
          [...pairs].sort(),
        );
        const idle = summary.find((s: any) => s.trading_pairs === "ETH_USDT");
        assert.deepEqual(idle, {
          trading_pairs: "ETH_USDT",
          base_currency: "ETH",
          quote_currency: "USDT",
          last_price: null,
          lowest_ask: null,
          highest_bid: null,
          base_volume: 0,
          quote_volume: 0,
          price_change_percent_24h: 0,
          highest_price_24h: null,
          lowest_price_24h: null,
        });
      });

      it("a traded pair's numbers match what was traded, /api/tickers and /api/orderbook", async () => {
        const res = await get("/api/marketdata/getaggregator/summary");
        const s = res.body.find((x: any) => x.trading_pairs === PAIR);
        const ticker = (await get(`/api/tickers?currencyPairCode=${PAIR}`)).body;
        const book = (await get(`/api/orderbook?currencyPairCode=${PAIR}`)).body;
        const aggTicker = (await get("/api/marketdata/getaggregator/tickers")).body.find(
          (t: any) => t.ticker_id === PAIR,
        );
        assert.equal(s.base_currency, "ALPHA");
        assert.equal(s.quote_currency, "USDT");
        // From the trades themselves.
        assert.equal(e4(s.last_price), trades.at(-1)!.price);
        assert.equal(e4(s.highest_price_24h), Math.max(...trades.map((t) => t.price)));
        assert.equal(e4(s.lowest_price_24h), Math.min(...trades.map((t) => t.price)));
        assert.equal(
          e4(s.base_volume),
          trades.reduce((sum, t) => sum + t.amount, 0),
        );
        assert.equal(
          Math.round(s.quote_volume * 1e8),
          trades.reduce((sum, t) => sum + t.price * t.amount, 0),
        );
        // The first trade is the earliest in the window: change = (0.45 - 0.5) / 0.5 = -10%.
        assert.equal(s.price_change_percent_24h, -10);
        assert.match(res.text, /"price_change_percent_24h":-10[,}]/, "an exact decimal, not a float");
        // Against the other endpoints.
        assert.equal(s.last_price, ticker.price);
        assert.equal(s.base_volume, ticker.volume24h);
        assert.equal(s.price_change_percent_24h, ticker.priceChangePercentage24h);
        assert.equal(s.highest_bid, ticker.bidPrice);
        assert.equal(s.lowest_ask, ticker.askPrice);
        assert.equal(s.highest_bid, book.find((level: any) => level.isBid).price);
        assert.equal(s.lowest_ask, book.find((level: any) => !level.isBid).price);
        assert.equal(s.highest_bid, 0.3);
        assert.equal(s.lowest_ask, 0.6);
        assert.equal(s.quote_volume, aggTicker.target_volume);
        assert.equal(s.highest_price_24h, aggTicker.high);
        assert.equal(s.lowest_price_24h, aggTicker.low);
      });
    });

    describe("/v1/spot/market aliases", () => {
      it("answer exactly what the canonical routes answer, with the same query parameters", async () => {
        const start = new Date(Date.now() - 3_600_000).toISOString().slice(0, 19);
        const end = new Date(Date.now() + 60_000).toISOString().slice(0, 19);
        for (const path of aliased(start, end)) {
          const [canonical, alias] = await Promise.all([get(`/api${path}`), get(`${ALIAS}${path}`)]);
          assert.equal(canonical.status, 200, `${path}: ${canonical.text}`);
          assert.equal(alias.status, 200, `${path}: ${alias.text}`);
          assert.ok(alias.text.length > 2, `${path} answers something`);
          // The ticker is stamped in whole seconds: the two calls may straddle one.
          const body = (text: string) => (path.startsWith("/tickers") ? { ...JSON.parse(text), timestamp: 0 } : text);
          assert.deepEqual(body(alias.text), body(canonical.text), path);
          assert.equal(alias.headers.get("content-type"), canonical.headers.get("content-type"), path);
          assert.equal(alias.headers.get("cache-control"), canonical.headers.get("cache-control"), path);
        }
      });

      it("answer the same errors: unknown pair, missing or bad parameters", async () => {
        for (const path of [
          "/tickers?currencyPairCode=NOPE_USDT",
          "/orderbook?currencyPairCode=NOPE_USDT",
          "/deals?currencyPairCode=NOPE_USDT",
          "/ohlc?currencyPairCode=NOPE_USDT&interval=minute&start=2026-01-01&end=2026-01-02",
          "/tickers",
          `/deals?currencyPairCode=${PAIR}&pageSize=101`,
          `/deals?currencyPairCode=${PAIR}&sinceDate=2026-01-02&endDate=2026-01-01`,
          `/ohlc?currencyPairCode=${PAIR}&interval=week&start=2026-01-01&end=2026-01-02`,
        ]) {
          const [canonical, alias] = await Promise.all([get(`/api${path}`), get(`${ALIAS}${path}`)]);
          assert.equal(canonical.status, 400, `${path}: ${canonical.text}`);
          assert.equal(alias.status, 400, `${path}: ${alias.text}`);
          assert.deepEqual(alias.body, canonical.body, path);
        }
        const unknown = await get(`${ALIAS}/tickers?currencyPairCode=NOPE_USDT`);
        assert.equal(unknown.body.code, "UNKNOWN_PAIR", unknown.text);
      });

      it("cover the public market data only: other names under /v1/spot/market are 404", async () => {
        for (const path of ["/healthcheck", "/marketdata/getaggregator/tickers", "/orders", "/nope"]) {
          const res = await get(`${ALIAS}${path}`);
          assert.equal(res.status, 404, `${path}: ${res.text}`);
          assert.equal(res.body.code, "NOT_FOUND");
        }
      });

      it("a signed /deals works through the alias when the alias's own URL is signed", async () => {
        const query = `/deals?currencyPairCode=${PAIR}`;
        const viaAlias = await api.signed(taker, "GET", `${ALIAS}${query}`, undefined, { timestamp: Date.now() });
        const viaApi = await api.signed(taker, "GET", `/api${query}`, undefined, { timestamp: Date.now() });
        assert.equal(viaAlias.status, 200, viaAlias.text);
        assert.deepEqual(viaAlias.body, viaApi.body);
        assert.ok(
          viaAlias.body.every((d: any) => d.isUserBuyer === d.isBuy),
          "the taker's own deals are marked",
        );
        // The signature covers the full URL: one made for /api/deals does not verify at the alias.
        const headers = signRequest({
          publicKey: taker.publicKey,
          privateKey: taker.privateKey,
          method: "GET",
          url: `${server.url}/api${query}`,
          body: "",
          timestamp: Date.now(),
        });
        const moved = await fetch(`${server.url}${ALIAS}${query}`, { headers });
        assert.equal(moved.status, 401);
        assert.equal(((await moved.json()) as any).code, "UNAUTHORIZED");
      });
    });

    describe("CORS: the web app's origin only (WEB_ORIGIN's default)", () => {
      const preflight = (path: string, origin: string) =>
        fetch(`${server.url}${path}`, {
          method: "OPTIONS",
          headers: {
            Origin: origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "api-publickey,api-signature,api-timestamp,content-type",
          },
        });
      const corsHeaders = (res: Response) => [...res.headers.keys()].filter((h) => h.startsWith("access-control-"));

      it("answers a preflight of the signed and public routes from the web app with the signing headers", async () => {
        for (const path of ["/api/orders", "/api/orders/123", `${ALIAS}/tickers`]) {
          const res = await preflight(path, "http://127.0.0.1:3000");
          assert.equal(res.status, 204, path);
          assert.equal(res.headers.get("access-control-allow-origin"), "http://127.0.0.1:3000");
          assert.equal(res.headers.get("access-control-allow-methods"), "GET,POST,DELETE");
          assert.equal(
            res.headers.get("access-control-allow-headers"),
            "API-PublicKey,API-Signature,API-Timestamp,Content-Type,X-CSRF-Token",
          );
          // The web account's session cookie rides on the app's calls: credentials for its origins only.
          assert.equal(res.headers.get("access-control-allow-credentials"), "true");
        }
        const read = await fetch(`${server.url}/api/tickers?currencyPairCode=${PAIR}`, {
          headers: { Origin: "http://localhost:3000" },
        });
        assert.equal(read.headers.get("access-control-allow-origin"), "http://localhost:3000");
        assert.match(read.headers.get("access-control-expose-headers") ?? "", /RateLimit-Remaining/);
      });

      it("gives another origin, /internal and /admin no CORS header at all", async () => {
        // An ordinary request then: here the signed route's 401, as without an Origin.
        const foreign = await preflight("/api/orders", "https://evil.example");
        assert.equal(foreign.status, 401);
        assert.deepEqual(corsHeaders(foreign), []);
        const read = await fetch(`${server.url}/api/tickers?currencyPairCode=${PAIR}`, {
          headers: { Origin: "https://evil.example" },
        });
        assert.equal(read.status, 200);
        assert.deepEqual(corsHeaders(read), []);
        for (const path of ["/internal/verify-signature", "/admin/users"]) {
          assert.deepEqual(corsHeaders(await preflight(path, "http://127.0.0.1:3000")), [], path);
        }
      });
    });

    describe("OpenAPI", () => {
      it("documents /api/time, both summaries and every alias as a copy of its route", async () => {
        const doc = (await get("/swagger/v1/swagger.json")).body;
        for (const path of ["/api/time", "/api/summary", "/api/marketdata/getaggregator/summary"]) {
          assert.ok(doc.paths[path]?.get, `${path} is documented`);
        }
        const names = [
          "tickers",
          "orderbook",
          "deals",
          "ohlc",
          "currencies",
          "currencies/pairs",
          "currencies/commissions",
          "time",
          "summary",
        ];
        for (const name of names) {
          const canonical = doc.paths[`/api/${name}`]?.get;
          const alias = doc.paths[`${ALIAS}/${name}`]?.get;
          assert.ok(canonical, `/api/${name} is documented`);
          assert.ok(alias, `${ALIAS}/${name} is documented`);
          assert.deepEqual(alias.parameters, canonical.parameters, name);
          assert.deepEqual(alias.responses, canonical.responses, name);
          assert.deepEqual(alias.security, canonical.security, name);
          assert.ok(alias.description.startsWith(`Alias of GET /api/${name}:`), alias.description);
          assert.notEqual(alias.operationId, canonical.operationId);
        }
        const aliasPaths = Object.keys(doc.paths).filter((path) => path.startsWith(`${ALIAS}/`));
        assert.deepEqual(aliasPaths.sort(), names.map((name) => `${ALIAS}/${name}`).sort());
        const summaryItem = doc.paths["/api/summary"].get.responses["200"].content["application/json"].schema.items;
        assert.deepEqual(Object.keys(summaryItem.properties), [
          "trading_pairs",
          "base_currency",
          "quote_currency",
          "last_price",
          "lowest_ask",
          "highest_bid",
          "base_volume",
          "quote_volume",
          "price_change_percent_24h",
          "highest_price_24h",
          "lowest_price_24h",
        ]);
        const operationIds = Object.values(doc.paths).flatMap((item: any) =>
          Object.values(item).map((op: any) => op.operationId),
        );
        assert.equal(new Set(operationIds).size, operationIds.length, "operationIds are unique");
      });
    });
  });
}

describe("rate limit of /api/time and the aliases", () => {
  it("share the public endpoints' per-IP quota", async () => {
    const backend = await createBackend("pglite", { RATE_LIMIT_PER_MINUTE: "3" });
    const server = await startExchange(backend.env, { log: quiet, beforeLoad: seedFixtureBeforeLoad });
    try {
      const statuses = [];
      for (const path of ["/api/time", `${ALIAS}/time`, `${ALIAS}/currencies`, "/api/currencies", `${ALIAS}/summary`]) {
        statuses.push((await fetch(`${server.url}${path}`)).status);
      }
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
      const limited = await fetch(`${server.url}${ALIAS}/tickers?currencyPairCode=${PAIR}`);
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get("retry-after")) > 0);
      assert.equal(((await limited.json()) as any).code, "RATE_LIMITED");
    } finally {
      await server.close();
      await backend.cleanup();
    }
  });
});
