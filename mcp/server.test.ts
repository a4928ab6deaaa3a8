import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type CallToolResult, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { Fetcher } from "./http-client.ts";
import type { LiveFeeds } from "./live-feed.ts";
import { limitRequests, RATE_LIMITED_RPC } from "./request-limit.ts";
import { ACTION_LOG_URI } from "./resources.ts";
import { createMcpServer, type McpDeps } from "./server.ts";

const overview = {
  hive: { totalTokens: 3, totalWorkers: 3, totalQueens: 1, totalScouts: 2 },
  swarm: { activeWorkers: 2, lastActivityAt: null },
  ecosystem: {
    totalAgentTokensSpawned: 3,
    tokensSpawnedLast24h: 1,
    tokensSpawnedLast7d: 3,
    totalActions24h: 9,
    totalOverrides24h: 0,
  },
};

const pool = {
  address: `0x${"1".repeat(40)}`,
  token: `0x${"2".repeat(40)}`,
  pairAsset: `0x${"3".repeat(40)}`,
  side: "STABLE",
  feeTier: 3000,
  reserves: { token: "1000", pair: "0", virtualPair: "1000" },
  price: "1.000000000000000000",
  tvl: "0",
  volume24h: "0",
  tvlStable: "0",
  volume24hStable: "0",
  swapCount24h: 0,
  lastTradeAt: null,
  recentTrades: [],
};

/** A stand-in platform: answers by path, records every URL asked. */
function fakePlatform(routes: Record<string, (url: URL) => Response | Promise<Response>>) {
  const asked: string[] = [];
  const fetch: Fetcher = async (url, init) => {
    asked.push(url);
    const parsed = new URL(url, "http://platform");
    const route = routes[parsed.pathname];
    if (init?.signal?.aborted) throw init.signal.reason;
    return route ? route(parsed) : Response.json({ code: "NOT_FOUND", message: "no such thing" }, { status: 404 });
  };
  return { fetch, asked };
}

function fakeFeeds() {
  const listeners = new Map<string, Set<(event: string) => void>>();
  const feeds: LiveFeeds = {
    subscribe(path, listener) {
      const set = listeners.get(path) ?? new Set();
      listeners.set(path, set);
      set.add(listener);
      return () => set.delete(listener);
    },
    close() {},
  };
  const emit = (path: string) => {
    for (const listener of listeners.get(path) ?? []) listener("action");
  };
  const count = (path: string) => listeners.get(path)?.size ?? 0;
  return { feeds, emit, count };
}

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(deps: Partial<McpDeps> = {}, callsPerMinute = 100) {
  const platform = fakePlatform({
    "/api/agents/overview": () => Response.json({ ...overview, extra: "dropped" }),
    "/api/agents/action-logs": () => Response.json({ items: [], page: 1, pageSize: 20, totalItems: 0 }),
    "/api/tickers": (url) =>
      Response.json({ currencyPairCode: url.searchParams.get("currencyPairCode"), lastPrice: 1 }),
    "/api/orderbook": () => Response.json([{ price: 1, amount: 2 }]),
    "/api/launchpad/tokens/4/pool": () => Response.json(pool),
  });
  const live = fakeFeeds();
  const server = createMcpServer(
    {
      ecosystem: { fetch: platform.fetch, base: "" },
      exchange: { fetch: platform.fetch, base: "" },
      feeds: live.feeds,
      specPath: new URL("../README.md", import.meta.url).pathname,
      timeoutMs: 2_000,
      ...deps,
    },
    { callsPerMinute },
  );
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  limitRequests(serverSide, 5);
  const client = new Client({ name: "test", version: "0" });
  clients.push(client);
  await client.connect(clientSide);
  return { client, platform, live };
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const errorOf = (result: CallToolResult) => {
  expect(result.isError).toBe(true);
  const [first] = result.content;
  return JSON.parse(first?.type === "text" ? first.text : "null") as { code: string; message: string };
};

describe("createMcpServer", () => {
  it("lists every read tool with JSON schemas for input and output", async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        "get_exchange_candles",
        "get_order_book",
        "get_overview",
        "get_proposal",
        "get_ticker",
        "get_token",
        "get_token_candles",
        "get_token_pool",
        "get_token_worker",
        "get_worker",
        "list_action_logs",
        "list_deals",
        "list_pairs",
        "list_proposals",
        "list_token_holders",
        "list_token_trades",
        "list_tokens",
        "list_workers",
        "quote_swap",
      ].sort(),
    );
    for (const tool of tools) {
      expect(tool.outputSchema?.type).toBe("object");
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
    const logs = tools.find((t) => t.name === "list_action_logs");
    expect(logs?.inputSchema.properties?.pageSize).toMatchObject({ type: "integer", minimum: 1, maximum: 100 });
  });

  it("answers a read with the REST answer, keys outside the schema dropped", async () => {
    const { client, platform } = await connect();
    await client.listTools(); // the client then checks structuredContent against the schema
    const result = await call(client, "get_overview");
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual(overview);
    expect(platform.asked).toEqual(["/api/agents/overview"]);
  });

  it("maps JSON arguments to the REST query and wraps array answers", async () => {
    const { client, platform } = await connect();
    await call(client, "list_action_logs", { sourceTier: "queen", pageSize: 5, since: 10 });
    expect(platform.asked).toEqual(["/api/agents/action-logs?sourceTier=queen&since=10&pageSize=5"]);
    const book = await call(client, "get_order_book", { currencyPairCode: "ETH_USDT" });
    expect(book.structuredContent).toEqual({ items: [{ price: 1, amount: 2 }] });
  });

  it("quotes a swap with the pool's exact integer math", async () => {
    const { client } = await connect();
    await client.listTools();
    // 100 stable in: fee ceil(100e6 * 3000 / 1e6) = 0.3, out floor(99.7e6 * 1000e18 / 1099.7e6) base units.
    const buy = await call(client, "quote_swap", { tokenId: "4", side: "buy", amountIn: "100" });
    expect(buy.structuredContent).toEqual({
      tokenId: "4",
      pool: pool.address,
      side: "buy",
      amountIn: "100",
      fee: "0.3",
      amountOut: "90.661089388014913158",
      priceImpactBps: "2096",
    });
    const tooFine = errorOf(await call(client, "quote_swap", { tokenId: "4", side: "buy", amountIn: "0.0000001" }));
    expect(tooFine.code).toBe("INVALID_PARAM");
  });

  it("passes a REST refusal on with its code", async () => {
    const { client } = await connect();
    expect(errorOf(await call(client, "get_token", { tokenId: "77" }))).toEqual({
      code: "NOT_FOUND",
      message: "no such thing",
    });
  });

  it("refuses bad arguments and unknown tools with SPEC.md codes, not a crash", async () => {
    const { client, platform } = await connect();
    const tooBig = errorOf(await call(client, "list_action_logs", { pageSize: 101 }));
    expect(tooBig.code).toBe("INVALID_PARAM");
    expect(tooBig.message).toContain("pageSize");
    expect(errorOf(await call(client, "get_token", { tokenId: "0xnope" })).code).toBe("INVALID_PARAM");
    expect(errorOf(await call(client, "list_tokens", { sort: "random" })).code).toBe("INVALID_PARAM");
    expect(errorOf(await call(client, "no_such_tool")).code).toBe("NOT_FOUND");
    expect(platform.asked).toEqual([]);
    expect((await call(client, "get_overview")).isError).toBeUndefined();
  });

  it("answers TIMEOUT when the platform does not answer in time", async () => {
    const hang: Fetcher = (_url, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)));
    const { client } = await connect({ ecosystem: { fetch: hang, base: "" }, timeoutMs: 100 });
    const started = Date.now();
    expect(errorOf(await call(client, "get_overview")).code).toBe("TIMEOUT");
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("answers UNAVAILABLE when the platform is unreachable", async () => {
    const down: Fetcher = () => Promise.reject(new TypeError("fetch failed"));
    const { client } = await connect({ exchange: { fetch: down, base: "" } });
    expect(errorOf(await call(client, "get_ticker", { currencyPairCode: "ETH_USDT" })).code).toBe("UNAVAILABLE");
  });

  it("limits tool calls per session with RATE_LIMITED, other requests by JSON-RPC error", async () => {
    const { client } = await connect({}, 2);
    await call(client, "get_overview");
    await call(client, "get_overview");
    const refused = errorOf(await call(client, "get_overview"));
    expect(refused.code).toBe("RATE_LIMITED");
    for (let i = 0; i < 5; i++) await client.listResources();
    await expect(client.listResources()).rejects.toMatchObject({ code: RATE_LIMITED_RPC });
  });

  it("serves SPEC.md and the action log as resources", async () => {
    const { client } = await connect();
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([ACTION_LOG_URI, "ecosystem://spec"]);
    const spec = await client.readResource({ uri: "ecosystem://spec" });
    expect(spec.contents[0]).toMatchObject({ mimeType: "text/markdown" });
    const log = await client.readResource({ uri: ACTION_LOG_URI });
    const [entry] = log.contents;
    expect(JSON.parse(entry && "text" in entry ? entry.text : "null")).toMatchObject({ items: [], pageSize: 20 });
  });

  it("notifies a subscriber of the action log when its stream has news, until it unsubscribes", async () => {
    const { client, live } = await connect();
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    await client.subscribeResource({ uri: ACTION_LOG_URI });
    const stream = "/api/agents/action-logs/stream";
    expect(live.count(stream)).toBe(1);
    live.emit(stream);
    await expect.poll(() => updates).toEqual([ACTION_LOG_URI]);
    await client.unsubscribeResource({ uri: ACTION_LOG_URI });
    expect(live.count(stream)).toBe(0);
    await expect(client.subscribeResource({ uri: "ecosystem://nope" })).rejects.toThrow(/not a subscribable/);
  });

  it("ends a closed session's subscriptions", async () => {
    const { client, live } = await connect();
    await client.subscribeResource({ uri: "ecosystem://tokens/0x00000000000000000000000000000000000000aa/trades" });
    const stream = "/api/launchpad/stream?types=swap&tokenAddress=0x00000000000000000000000000000000000000aa";
    expect(live.count(stream)).toBe(1);
    await client.close();
    await expect.poll(() => live.count(stream)).toBe(0);
  });
});
