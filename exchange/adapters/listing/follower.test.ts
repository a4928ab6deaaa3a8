import assert from "node:assert/strict";
import { afterEach, describe, it } from "vitest";
import type { ListingOutcome, TokenToList } from "../../application/index.ts";
import { startListingFollower, type ListingFollower } from "./follower.ts";

/**
 * The ecosystem API's token list (newest first) and spawn stream, served from memory: `fail`
 * answers that many list reads with 503, `hang` never answers, and the stream is refused (404)
 * unless `stream` is on.
 */
function fakeApi() {
  const tokens: { address: string; symbol: string; name: string }[] = [];
  const state = { fail: 0, calls: [] as string[], hang: false, stream: false, streamsOpened: 0 };
  const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const encoder = new TextEncoder();
  const api = {
    tokens,
    state,
    streams,
    /** Sends raw text to every open stream. */
    send(text: string) {
      for (const controller of streams) controller.enqueue(encoder.encode(text));
    },
    spawn(symbol: string) {
      const address = `0x${(tokens.length + 1).toString(16).padStart(40, "0")}`;
      const token = { address, symbol, name: `${symbol} Agent` };
      tokens.unshift(token);
      api.send(`id: ${tokens.length}-0-abcd\nevent: spawn\ndata: ${JSON.stringify({ token, txHash: "0x01" })}\n\n`);
    },
    /** Ends every open stream (the API restarting). */
    endStreams() {
      for (const controller of streams) controller.close();
      streams.clear();
    },
    fetch: (async (input: URL | string, init?: RequestInit) => {
      const url = new URL(String(input));
      if (url.pathname === "/api/launchpad/stream") {
        assert.equal(url.searchParams.get("types"), "spawn");
        if (!state.stream) return new Response("no", { status: 404 });
        state.streamsOpened++;
        let own: ReadableStreamDefaultController<Uint8Array>;
        const body = new ReadableStream<Uint8Array>({
          start: (controller) => {
            own = controller;
            streams.add(controller);
            controller.enqueue(encoder.encode("retry: 2000\n\n"));
          },
          cancel: () => void streams.delete(own),
        });
        init?.signal?.addEventListener("abort", () => {
          streams.delete(own);
          own.error(init.signal?.reason);
        });
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      }
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
      if (listed.has(token.contractAddress)) return { status: "already-listed", currency: token.symbol };
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
      idleMs: 100,
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

  it("follows the spawn stream: a spawn is listed from its event, without reading the list", async () => {
    const api = fakeApi();
    api.state.stream = true;
    api.spawn("OLD");
    const exchange = fakeExchange();
    await start(api, exchange).caughtUp;
    const reads = api.state.calls.length;
    api.spawn("NEW");
    await waitUntil("NEW listed", () => exchange.listed.size === 2);
    api.send(": ping\n\nevent: swap\ndata: {}\n\n");
    api.spawn("NEXT");
    await waitUntil("NEXT listed", () => exchange.listed.size === 3);
    assert.equal(api.state.calls.length, reads, "no list read while the stream carries the spawns");
    assert.equal(api.state.streamsOpened, 1);
    // The stream ends (the API restarts): reopened, and the list read again from the newest page.
    api.endStreams();
    await waitUntil("a new stream", () => api.state.streamsOpened === 2);
    await waitUntil("a list read", () => api.state.calls.length > reads);
    assert.deepEqual(
      exchange.calls.map((t) => t.symbol),
      ["OLD", "NEW", "NEXT"],
    );
  });

  it("drops a silent stream and opens another, catching up from the list", async () => {
    const api = fakeApi();
    api.state.stream = true;
    const exchange = fakeExchange();
    const logs: string[] = [];
    await start(api, exchange, logs).caughtUp;
    // A spawn whose event is lost: the stream goes silent, is dropped, and the list catches it.
    api.state.stream = false;
    api.tokens.unshift({ address: `0x${"77".repeat(20)}`, symbol: "LOST", name: "Lost" });
    api.state.stream = true;
    await waitUntil("a silent stream dropped", () => logs.some((line) => line.includes("silent")), 2_000);
    await waitUntil("LOST listed", () => exchange.listed.size === 1);
    assert.ok(api.state.streamsOpened >= 2);
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
