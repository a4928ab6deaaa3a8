import assert from "node:assert/strict";
import { afterEach, describe, it } from "vitest";
import type { ListingOutcome, TokenToList } from "../../application/index.ts";
import { startListingFollower, type ListingFollower } from "./follower.ts";

/** The ecosystem API's token list (newest first), served from memory; `fail` answers 503s. */
function fakeApi() {
  const tokens: { address: string; symbol: string; name: string }[] = [];
  const state = { fail: 0, calls: [] as string[], hang: false };
  const api = {
    tokens,
    state,
    spawn(symbol: string) {
      const address = `0x${(tokens.length + 1).toString(16).padStart(40, "0")}`;
      tokens.unshift({ address, symbol, name: `${symbol} Agent` });
    },
    fetch: (async (input: URL | string, init?: RequestInit) => {
      const url = new URL(String(input));
      state.calls.push(url.search);
      if (state.hang)
        return new Promise<Response>((_, reject) =>
          init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)),
        );
      if (state.fail > 0) {
        state.fail--;
        return new Response("down", { status: 503 });
      }
      assert.equal(url.pathname, "/api/launchpad/tokens");
      assert.equal(url.searchParams.get("sort"), "recent");
      const page = Number(url.searchParams.get("page"));
      const pageSize = Number(url.searchParams.get("pageSize"));
      const items = tokens.slice((page - 1) * pageSize, page * pageSize).map((t) => ({ ...t, tvl: "0" }));
      return Response.json({ items, page, pageSize, totalItems: tokens.length });
    }) as typeof fetch,
  };
  return api;
}

/** A listToken that records each call and lists each address once. */
function fakeExchange() {
  const listed = new Map<string, string>();
  const calls: TokenToList[] = [];
  let failNext = 0;
  return {
    listed,
    calls,
    failNext: (n: number) => (failNext = n),
    listToken: async (token: TokenToList): Promise<ListingOutcome> => {
      calls.push(token);
      if (failNext > 0) {
        failNext--;
        throw new Error("database unavailable");
      }
      if (listed.has(token.contractAddress)) return { status: "already-listed", currency: token.symbol, bound: false };
      listed.set(token.contractAddress, token.symbol);
      return { status: "listed", currency: token.symbol, pairCode: `${token.symbol}_USDT` };
    },
  };
}

const waitUntil = async (what: string, check: () => boolean, timeoutMs = 5_000) => {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe("listing follower", () => {
  let follower: ListingFollower | undefined;
  afterEach(async () => {
    await follower?.close();
    follower = undefined;
  });
  const start = (api: ReturnType<typeof fakeApi>, exchange: ReturnType<typeof fakeExchange>, logs: string[] = []) =>
    (follower = startListingFollower({
      apiUrl: "http://ecosystem.test",
      listToken: exchange.listToken,
      log: (message) => logs.push(message),
      fetch: api.fetch,
      pollMs: 10,
      timeoutMs: 200,
      backoffMs: { min: 5, max: 20 },
      pageSize: 3,
    }));

  it("reads every page at start and lists the tokens oldest first, each once", async () => {
    const api = fakeApi();
    for (const symbol of ["AAA", "BBB", "CCC", "DDD", "EEE", "FFF", "GGG"]) api.spawn(symbol);
    const exchange = fakeExchange();
    await start(api, exchange).caughtUp;
    assert.deepEqual(
      exchange.calls.map((t) => t.symbol),
      ["AAA", "BBB", "CCC", "DDD", "EEE", "FFF", "GGG"],
    );
    assert.deepEqual(api.state.calls.slice(0, 3), [
      "?sort=recent&page=1&pageSize=3",
      "?sort=recent&page=2&pageSize=3",
      "?sort=recent&page=3&pageSize=3",
    ]);
    // Polls then read the newest page only, and list nothing again.
    const before = api.state.calls.length;
    await waitUntil("two more polls", () => api.state.calls.length >= before + 2);
    assert.ok(api.state.calls.slice(before).every((search) => search.includes("page=1&")));
    assert.equal(exchange.calls.length, 7);
  });

  it("lists new spawns within a poll, reading further pages while a whole page is new", async () => {
    const api = fakeApi();
    api.spawn("OLD");
    const exchange = fakeExchange();
    await start(api, exchange).caughtUp;
    for (const symbol of ["N1", "N2", "N3", "N4", "N5"]) api.spawn(symbol);
    await waitUntil("the new tokens", () => exchange.listed.size === 6);
    assert.deepEqual(
      exchange.calls.map((t) => t.symbol),
      ["OLD", "N1", "N2", "N3", "N4", "N5"],
    );
  });

  it("retries with backoff when the API or the listing fails, and never lists twice", async () => {
    const api = fakeApi();
    for (const symbol of ["AAA", "BBB", "CCC", "DDD"]) api.spawn(symbol);
    api.state.fail = 3;
    const exchange = fakeExchange();
    exchange.failNext(1);
    const logs: string[] = [];
    await start(api, exchange, logs).caughtUp;
    assert.deepEqual([...exchange.listed.values()], ["AAA", "BBB", "CCC", "DDD"]);
    assert.equal(logs.filter((line) => line.includes("answered 503")).length, 3);
    assert.ok(logs.some((line) => line.includes("database unavailable")));
    assert.ok(logs.some((line) => line.includes("answers again")));
    // AAA was tried twice (its first call failed); every other token once.
    assert.deepEqual(
      exchange.calls.map((t) => t.symbol),
      ["AAA", "AAA", "BBB", "CCC", "DDD"],
    );
  });

  it("gives up a call that hangs after its timeout, and a malformed answer is a failure, not a crash", async () => {
    const api = fakeApi();
    api.spawn("AAA");
    api.state.hang = true;
    const exchange = fakeExchange();
    const logs: string[] = [];
    const running = start(api, exchange, logs);
    await waitUntil("a timed-out call", () => logs.some((line) => /timeout|aborted/i.test(line)));
    api.state.hang = false;
    await running.caughtUp;
    assert.deepEqual([...exchange.listed.values()], ["AAA"]);

    await running.close();
    const brokenLogs: string[] = [];
    follower = startListingFollower({
      apiUrl: "http://ecosystem.test",
      listToken: exchange.listToken,
      log: (message) => brokenLogs.push(message),
      fetch: (async () => Response.json({ items: [{ symbol: "X" }], totalItems: 1 })) as typeof fetch,
      pollMs: 10,
      backoffMs: { min: 5, max: 10 },
    });
    await waitUntil("a logged bad answer", () => brokenLogs.some((line) => line.includes("lacks address")));
  });

  it("stops promptly on close, even while a call is out", async () => {
    const api = fakeApi();
    api.state.hang = true;
    const exchange = fakeExchange();
    const running = start(api, exchange);
    await waitUntil("a call out", () => api.state.calls.length > 0);
    const started = Date.now();
    await running.close();
    follower = undefined;
    assert.ok(Date.now() - started < 100);
  });
});
