import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { sign, signatureText } from "../adapters/auth/index.ts";
import { MarketMakerBot } from "./bot.ts";
import { ExchangeHttp } from "./client.ts";
import { createRandom } from "./random.ts";

// The bot's rounds against a scripted stand-in for the HTTP API: which calls it makes, that
// they are signed as the server checks them, and that failures do not stop it.

const maker = { publicKey: "pk_maker", privateKey: "sk_maker" };
const taker = { publicKey: "pk_taker", privateKey: "sk_taker" };
const PAIRS = `[{"code":"ALPHA_USDT","digitsPrice":4,"digitsAmount":2,"minQuoteAmount":1},{"code":"ETH_USDT","digitsPrice":2,"digitsAmount":4,"minQuoteAmount":1},{"code":"ZZZ_USDT","digitsPrice":2,"digitsAmount":2,"minQuoteAmount":null}]`;

interface Call {
  method: string;
  url: string;
  who: string | null;
  body: Record<string, unknown> | null;
}

function fakeServer(
  options: { pairs?: Response | (() => Response); order?: (call: Call) => Response; limit?: number } = {},
) {
  const calls: Call[] = [];
  const secrets: Record<string, string> = { [maker.publicKey]: maker.privateKey, [taker.publicKey]: taker.privateKey };
  const fetchImpl = (async (input: string, init: RequestInit = {}) => {
    const method = init.method ?? "GET";
    const headers = (init.headers ?? {}) as Record<string, string>;
    const body = typeof init.body === "string" ? init.body : "";
    const who = headers["API-PublicKey"] ?? null;
    if (who !== null) {
      const expected = sign(
        secrets[who],
        signatureText({ publicKey: who, url: input, body, timestamp: headers["API-Timestamp"] }),
      );
      assert.equal(headers["API-Signature"], expected, `bad signature on ${method} ${input}`);
    }
    const call: Call = { method, url: input, who, body: body === "" ? null : JSON.parse(body) };
    calls.push(call);
    const json = (status: number, value: string) =>
      new Response(value, { status, headers: { "RateLimit-Limit": String(options.limit ?? 1200) } });
    const path = new URL(input).pathname;
    if (path === "/api/currencies/pairs")
      return typeof options.pairs === "function" ? options.pairs() : (options.pairs ?? json(200, PAIRS));
    if (method === "DELETE" && path === "/api/orders") return json(200, `{"cancelled":[]}`);
    if (method === "POST" && path === "/api/orders") {
      if (options.order) return options.order(call);
      const ioc = call.body!.timeInForce === "IOC";
      return json(
        201,
        `{"id":"x","status":"${ioc ? "filled" : "open"}","filledAmount":${ioc ? call.body!.amount : 0},"filledQuoteAmount":0}`,
      );
    }
    return json(404, `{"code":"NOT_FOUND","message":"no ${method} ${path}"}`);
  }) as typeof fetch;
  return { calls, http: new ExchangeHttp("http://exchange.test:8080", { fetch: fetchImpl }) };
}

function bot(http: ExchangeHttp, intervalMs = 1500, log: string[] = []) {
  return new MarketMakerBot({
    http,
    maker,
    taker,
    random: createRandom("test"),
    intervalMs,
    log: (line) => log.push(line),
  });
}

describe("MarketMakerBot", () => {
  it("plans the configured pairs the server has and skips the others", async () => {
    const { http } = fakeServer();
    const log: string[] = [];
    const b = bot(http, 1500, log);
    await b.loadPairs();
    assert.deepEqual(b.pairs, ["ALPHA_USDT", "ETH_USDT"]);
    assert.match(log.join("\n"), /no start price configured for ZZZ_USDT/);
  });

  it("takes up pairs listed after it started, keeping the walks of the pairs it quotes", async () => {
    const all = JSON.parse(PAIRS) as { code: string }[];
    let listed = all.filter((pair) => pair.code === "ETH_USDT");
    const { http } = fakeServer({ limit: 100_000, pairs: () => new Response(JSON.stringify(listed)) });
    const log: string[] = [];
    const b = bot(http, 1500, log);
    await b.loadPairs();
    assert.deepEqual(b.pairs, ["ETH_USDT"]);
    await b.tick();
    await b.tick();
    const ethMid = b.mids()[0];
    assert.notEqual(ethMid, "ETH_USDT 3000.00", "the walk moved");

    listed = all;
    await b.loadPairs();
    await b.loadPairs();
    assert.deepEqual(b.pairs, ["ALPHA_USDT", "ETH_USDT"]);
    assert.deepEqual(b.mids(), ["ALPHA_USDT 0.5000", ethMid]);
    assert.equal(log.filter((line) => line.includes("no start price configured for ZZZ_USDT")).length, 1);
    const summary = await b.tick();
    assert.deepEqual(summary.quoted.map((q) => q.split(" ")[0]).sort(), ["ALPHA_USDT", "ETH_USDT"]);
  });

  it("falls back to the demo pairs without GET /api/currencies/pairs", async () => {
    const { http } = fakeServer({ pairs: new Response(`{"code":"NOT_FOUND","message":"no"}`, { status: 404 }) });
    const b = bot(http);
    await b.loadPairs();
    assert.deepEqual(b.pairs, ["ETH_USDT", "ALPHA_USDT", "BETA_USDT", "GAMMA_USDT", "GAMMA_ETH"]);
  });

  it("cancels and re-quotes a ladder, then the taker crosses it with a signed IOC order", async () => {
    const { http, calls } = fakeServer({ limit: 100_000 });
    const b = bot(http);
    await b.loadPairs();
    calls.length = 0;
    const summary = await b.tick();
    assert.equal(summary.errors, 0);
    assert.equal(summary.quoted.length, 2);
    assert.equal(summary.trades, 2);
    for (const [i, code] of ["ALPHA_USDT", "ETH_USDT"].entries()) {
      const mine = calls.slice(i * 12, (i + 1) * 12);
      assert.equal(mine[0].method, "DELETE");
      assert.equal(mine[0].url, `http://exchange.test:8080/api/orders?currencyPairCode=${code}`);
      assert.equal(mine[0].who, maker.publicKey);
      const quotes = mine.slice(1, 11);
      assert.ok(
        quotes.every(
          (call) =>
            call.who === maker.publicKey && call.body!.currencyPairCode === code && call.body!.timeInForce === "GTC",
        ),
      );
      assert.equal(quotes.filter((call) => call.body!.isBid).length, 5);
      assert.ok(quotes.every((call) => typeof call.body!.amount === "string" && typeof call.body!.price === "string"));
      assert.equal(mine[11].who, taker.publicKey);
      assert.equal(mine[11].body!.timeInForce, "IOC");
    }
  });

  it("takes turns between pairs when the key's rate limit is tight", async () => {
    const { http, calls } = fakeServer({ limit: 500 });
    const b = bot(http);
    await b.loadPairs();
    await b.tick(); // learns the limit from RateLimit-Limit
    calls.length = 0;
    const second = await b.tick();
    assert.equal(second.quoted.length, 1);
    assert.equal(calls.filter((call) => call.method === "DELETE").length, 1);
    // The taker still trades on both pairs: the ladder of the pair not re-quoted stays.
    assert.equal(calls.filter((call) => call.who === taker.publicKey).length, 2);
  });

  it("logs failed calls and keeps going; a 429 pauses the maker", async () => {
    let refuse = true;
    const { http, calls } = fakeServer({
      limit: 100_000,
      order: (call) =>
        call.who === maker.publicKey && refuse
          ? new Response(`{"code":"RATE_LIMITED","message":"Too many requests; retry in 30 s"}`, {
              status: 429,
              headers: { "Retry-After": "30" },
            })
          : new Response(`{"code":"INSUFFICIENT_BALANCE","message":"not enough"}`, { status: 400 }),
    });
    const log: string[] = [];
    let now = 1_000_000;
    const b = new MarketMakerBot({
      http,
      maker,
      taker,
      random: createRandom("x"),
      intervalMs: 1500,
      log: (line) => log.push(line),
      now: () => now,
    });
    await b.loadPairs();
    const first = await b.tick();
    // The first pair's ten quotes are refused; the maker then waits, so the second pair is not tried.
    assert.equal(first.errors, 10);
    assert.match(log.join("\n"), /maker quote .* failed: RATE_LIMITED: Too many requests/);
    // Repeats of one error are logged at the 1st, 10th, 100th... time, not every time.
    const limited = log.filter((line) => line.includes("RATE_LIMITED"));
    assert.equal(limited.length, 2);
    assert.match(limited[1], /\(10 times so far\)$/);
    calls.length = 0;
    now += 10_000;
    await b.tick();
    assert.equal(calls.filter((call) => call.who === maker.publicKey).length, 0, "the maker waits for Retry-After");
    refuse = false;
    now += 30_000;
    const third = await b.tick();
    assert.ok(third.errors > 0);
    assert.match(log.join("\n"), /INSUFFICIENT_BALANCE/);
  });

  it("counts an IOC that found nothing as no trade, not as an error", async () => {
    const { http } = fakeServer({
      limit: 100_000,
      order: (call) =>
        new Response(
          call.who === maker.publicKey
            ? `{"id":"m","status":"open","filledAmount":0,"filledQuoteAmount":0}`
            : `{"id":"t","status":"cancelled","filledAmount":0,"filledQuoteAmount":0}`,
          {
            status: 201,
          },
        ),
    });
    const b = bot(http);
    await b.loadPairs();
    const summary = await b.tick();
    assert.equal(summary.trades, 0);
    assert.equal(summary.errors, 0);
  });
});
