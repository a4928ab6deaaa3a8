import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { mcpHttpApi } from "./http.ts";
import type { LiveFeeds } from "./live-feed.ts";

const feeds: LiveFeeds = { subscribe: () => () => {}, close() {} };
const overview = {
  hive: { totalTokens: 0, totalWorkers: 0, totalQueens: 0, totalScouts: 0 },
  swarm: { activeWorkers: 0, lastActivityAt: null },
  ecosystem: {
    totalAgentTokensSpawned: 0,
    tokensSpawnedLast24h: 0,
    tokensSpawnedLast7d: 0,
    totalActions24h: 0,
    totalOverrides24h: 0,
  },
};
const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } },
};
const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };

const apis: ReturnType<typeof mcpHttpApi>[] = [];
afterEach(async () => {
  await Promise.all(apis.splice(0).map((api) => api.close()));
});

function api(overrides: Partial<Parameters<typeof mcpHttpApi>[0]> = {}) {
  const ips: string[] = [];
  const created = mcpHttpApi({
    depsFor: (ip) => {
      ips.push(ip);
      return {
        ecosystem: { fetch: async () => Response.json(overview), base: "" },
        exchange: { fetch: async () => Response.json({}), base: "" },
        feeds,
        specPath: "/nonexistent",
        timeoutMs: 1_000,
      };
    },
    callsPerMinute: 100,
    maxSessions: 10,
    sessionsPerMinute: 10,
    idleMs: 60_000,
    webOrigins: ["http://127.0.0.1:3000"],
    trustProxy: false,
    ...overrides,
  });
  apis.push(created);
  return { ...created, ips };
}
const post = (app: ReturnType<typeof mcpHttpApi>["app"], body: unknown, extra: Record<string, string> = {}) =>
  app.request("/mcp", { method: "POST", headers: { ...headers, ...extra }, body: JSON.stringify(body) });

describe("mcpHttpApi", () => {
  it("serves the SDK client over Streamable HTTP, one session per client", async () => {
    const { app, sessionCount } = api();
    const fetchApp = (url: string | URL | Request, init?: RequestInit) =>
      Promise.resolve(app.request(new Request(url, init)));
    const client = new Client({ name: "t", version: "0" });
    const transport = new StreamableHTTPClientTransport(new URL("http://mcp.test/mcp"), { fetch: fetchApp });
    await client.connect(transport);
    expect(sessionCount()).toBe(1);
    const result = await client.callTool({ name: "get_overview", arguments: {} });
    expect(result.structuredContent).toEqual(overview);
    await transport.terminateSession();
    expect(sessionCount()).toBe(0);
    await client.close();
  });

  it("refuses requests without a session, with an unknown one, or from a foreign origin", async () => {
    const { app } = api();
    expect((await post(app, { jsonrpc: "2.0", id: 1, method: "tools/list" })).status).toBe(400);
    const stale = await post(app, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-session-id": "nope" });
    expect(stale.status).toBe(404);
    expect((await post(app, initialize, { origin: "http://evil.test" })).status).toBe(403);
    expect((await post(app, initialize, { origin: "http://127.0.0.1:3000" })).status).toBe(200);
  });

  it("bounds sessions in all and per client IP per minute", async () => {
    const few = api({ maxSessions: 2 });
    expect((await post(few.app, initialize)).status).toBe(200);
    expect((await post(few.app, initialize)).status).toBe(200);
    const full = await post(few.app, initialize);
    expect(full.status).toBe(503);
    expect(full.headers.get("retry-after")).toBe("60");
    const slow = api({ sessionsPerMinute: 1 });
    expect((await post(slow.app, initialize)).status).toBe(200);
    const refused = await post(slow.app, initialize);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { message: "RATE_LIMITED" } });
  });

  it("closes a session idle past idleMs", async () => {
    let now = 0;
    const { app, sessionCount } = api({ idleMs: 1_000, now: () => now });
    const opened = await post(app, initialize);
    const id = opened.headers.get("mcp-session-id");
    expect(id).toBeTruthy();
    expect(sessionCount()).toBe(1);
    now = 5_000;
    await expect.poll(() => sessionCount(), { timeout: 3_000 }).toBe(0);
    expect((await post(app, { jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": id! })).status).toBe(
      404,
    );
  });
});
