/**
 * A browser-free consumer check: spec-consumer/client.ts, a small client written from SPEC.md alone
 * (not from our code), reads every public endpoint of a server that has real matched trades and
 * must report zero violations of SPEC.md's types, sort orders and invariants. The set-up below
 * may use our code; the checks may not.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, it } from "vitest";
import { seedFixtureBeforeLoad } from "../../support/exchange/fixture-market.ts";
import { startExchange, type RunningExchange } from "../../exchange/server/start.ts";
import { createBackend, type Backend } from "../../support/exchange/backends.ts";
import { SigningClient, type Credentials } from "../../support/exchange/signing-client.ts";
import { checkError, runConsumer } from "./spec-consumer/client.ts";

const quiet = () => {};
const AGG = "/api/marketdata/getaggregator";

describe("SPEC.md consumer against a server with real trades (PGlite)", () => {
  let backend: Backend;
  let server: RunningExchange;
  let api: SigningClient;
  let dealCount = 0;

  const place = async (who: Credentials, body: object) => {
    const res = await api.signed(who, "POST", "/api/orders", body);
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  /** `taker` crosses what rests with an IOC order; returns the taker's order. */
  const trade = async (taker: Credentials, pair: string, takerBuys: boolean, price: string, amount: string) =>
    place(taker, { isBid: takerBuys, currencyPairCode: pair, amount, price, timeInForce: "IOC" });

  beforeAll(async () => {
    backend = await createBackend("pglite");
    server = await startExchange(backend.env, {
      log: quiet,
      beforeLoad: seedFixtureBeforeLoad,
    });
    api = new SigningClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!);
    const funds = { ALPHA: "100000", USDT: "100000", ETH: "100", GAMMA: "100000" };
    const maker = await api.user(0, funds);
    const taker = await api.user(0, funds);
    const rest = (who: Credentials, pair: string, isBid: boolean, price: string, amount: string) =>
      place(who, { isBid, currencyPairCode: pair, amount, price });

    // ALPHA_USDT: several prices, both taker sides, a sweep of two levels, partial fills, swapped roles.
    await rest(maker, "ALPHA_USDT", false, "0.5", "10");
    await trade(taker, "ALPHA_USDT", true, "0.5", "10");
    await rest(maker, "ALPHA_USDT", false, "0.55", "4");
    await rest(maker, "ALPHA_USDT", false, "0.56", "3");
    const sweep = await trade(taker, "ALPHA_USDT", true, "0.56", "7");
    assert.equal(sweep.status, "filled");
    await rest(maker, "ALPHA_USDT", true, "0.45", "6");
    await trade(taker, "ALPHA_USDT", false, "0.45", "6");
    await rest(maker, "ALPHA_USDT", true, "0.4", "20");
    await trade(taker, "ALPHA_USDT", false, "0.4", "12.5"); // 7.5 stays on the book at 0.4
    await rest(maker, "ALPHA_USDT", false, "0.61", "8.5");
    await trade(taker, "ALPHA_USDT", true, "0.61", "3.33"); // 5.17 stays at 0.61; quote 2.0313
    await rest(taker, "ALPHA_USDT", true, "0.42", "10");
    await trade(maker, "ALPHA_USDT", false, "0.42", "10");
    dealCount += 7;
    // The resting ALPHA_USDT book: bids 0.4, 0.3 (two owners, one level), 0.29; asks 0.61, 0.62, 0.7.
    await rest(maker, "ALPHA_USDT", true, "0.3", "5");
    await rest(taker, "ALPHA_USDT", true, "0.3", "7");
    await rest(maker, "ALPHA_USDT", true, "0.29", "4");
    await rest(maker, "ALPHA_USDT", false, "0.62", "2");
    await rest(taker, "ALPHA_USDT", false, "0.7", "2");

    // ETH_USDT: other precisions (2 price, 4 amount digits); quote 2000.5 * 0.0123 = 24.60615.
    await rest(maker, "ETH_USDT", false, "2000.5", "0.0123");
    await trade(taker, "ETH_USDT", true, "2000.5", "0.0123");
    await rest(maker, "ETH_USDT", true, "1999.99", "0.5");
    await trade(taker, "ETH_USDT", false, "1999.99", "0.25");
    await rest(maker, "ETH_USDT", false, "2001", "0.1");
    dealCount += 2;

    // GAMMA_ETH: a book and no trade (so the aggregator tickers leave it out).
    await rest(maker, "GAMMA_ETH", true, "0.00012345", "10");
    await rest(maker, "GAMMA_ETH", false, "0.0002", "5");
    // BETA_USDT: 55 bid levels and no trade, so the 40-level cap and depth 100 (50 a side) are exercised.
    for (let i = 0; i < 55; i++) await rest(taker, "BETA_USDT", true, (0.1 + i / 1000).toFixed(3), "20");
  });

  afterAll(async () => {
    await server?.close();
    await backend?.cleanup();
  });

  it("reads every public and aggregator endpoint and finds no violation", async () => {
    const report = await runConsumer({ baseUrl: server.url, aggregatorUrl: server.url, settledMarket: true });
    assert.deepEqual(report.violations, []);
    // Not vacuous: every endpoint was read and the data the trades made was there to check.
    for (const path of [
      "/api/healthcheck",
      "/api/currencies",
      "/api/currencies/pairs",
      "/api/currencies/commissions",
      "/api/tickers?",
      "/api/orderbook?",
      "/api/deals?",
      "/api/ohlc?",
      `${AGG}/tickers`,
      `${AGG}/asset`,
      `${AGG}/orderbook?`,
      `${AGG}/historical_trades?`,
    ]) {
      assert.ok(
        report.requests.some((r) => r.startsWith(`GET ${path}`)),
        `${path} was read`,
      );
    }
    assert.equal(report.seen.pairs, 4);
    assert.equal(report.seen.deals, dealCount);
    assert.equal(report.seen.aggTrades, dealCount);
    assert.equal(report.seen.aggTickers, 2, "ALPHA_USDT and ETH_USDT; GAMMA_ETH and BETA_USDT have no trade");
    assert.equal(
      report.seen.bookLevels,
      6 + 2 + 2 + 40,
      "ALPHA_USDT 3 + 3 levels, ETH_USDT 1 + 1, GAMMA_ETH 1 + 1, BETA_USDT 40 of 55 bids",
    );
    assert.ok(report.seen.candles >= 10 * 2, "each of 10 intervals has candles on the two traded pairs");
  });

  it("answers bad aggregator parameters with 400 INVALID_PARAM and unknown pairs with 404 NOT_FOUND, as {code, message}", async () => {
    const cases: [string, number, string][] = [
      [`${AGG}/orderbook`, 400, "INVALID_PARAM"],
      [`${AGG}/historical_trades`, 400, "INVALID_PARAM"],
      [`${AGG}/orderbook?ticker_id=ALPHA_USDT&depth=50`, 400, "INVALID_PARAM"],
      [`${AGG}/historical_trades?ticker_id=ALPHA_USDT&limit=7`, 400, "INVALID_PARAM"],
      [`${AGG}/historical_trades?ticker_id=ALPHA_USDT&type=hold`, 400, "INVALID_PARAM"],
      [`${AGG}/historical_trades?ticker_id=ALPHA_USDT&start_time=2000&end_time=1000`, 400, "INVALID_PARAM"],
      [`${AGG}/orderbook?ticker_id=NOPE_USDT`, 404, "NOT_FOUND"],
      [`${AGG}/historical_trades?ticker_id=NOPE_USDT`, 404, "NOT_FOUND"],
    ];
    const problems = (
      await Promise.all(cases.map(([path, status, code]) => checkError(`${server.url}${path}`, status, code)))
    ).flat();
    assert.deepEqual(problems, []);
  });

  it("the consumer does catch violations (a proxy that tampers with answers)", async () => {
    // Each tamper breaks one SPEC.md rule; the consumer must name every one of them.
    const tamper = (path: string, text: string): string => {
      if (path === "/api/healthcheck") return JSON.stringify("exchange 1.0");
      if (path.startsWith("/api/orderbook?currencyPairCode=ALPHA_USDT"))
        return text.replace(/"quoteAmount":([\d.]+)/, '"quoteAmount":$11');
      if (path.startsWith("/api/deals?currencyPairCode=ALPHA_USDT&pageSize"))
        return JSON.stringify(JSON.parse(text).reverse());
      if (path.startsWith(`${AGG}/tickers`)) return JSON.stringify(JSON.parse(text).reverse());
      return text;
    };
    const proxy = await startProxy(server.url, tamper);
    try {
      const { violations } = await runConsumer({ baseUrl: proxy.url, settledMarket: true });
      const expect = [
        /healthcheck: .*AssemblyName/,
        /orderbook.*quoteAmount .* != price \* amount/,
        /deals.*not sorted by dealDateUtc descending/,
        /tickers: not sorted by ticker_id/,
      ];
      for (const pattern of expect)
        assert.ok(
          violations.some((v) => pattern.test(v)),
          `${pattern} in:\n${violations.join("\n")}`,
        );
    } finally {
      proxy.server.closeAllConnections();
      await new Promise((resolve) => proxy.server.close(resolve));
    }
  });
});

/** An HTTP proxy in front of `target` that passes every body through `tamper`. */
async function startProxy(
  target: string,
  tamper: (path: string, text: string) => string,
): Promise<{ server: Server; url: string }> {
  const server = createServer(async (req, res) => {
    const upstream = await fetch(`${target}${req.url}`);
    const text = tamper(req.url ?? "", await upstream.text());
    res.writeHead(upstream.status, { "content-type": "application/json" });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
