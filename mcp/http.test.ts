import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { mcpHttpApi } from "./http.ts";
import type { KeyCheck } from "./http-auth.ts";
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

  it("answers a session's unreadable body as JSON-RPC's parse error", async () => {
    const { app } = api();
    const session = { "mcp-session-id": (await post(app, initialize)).headers.get("mcp-session-id")! };
    const bad = await app.request("/mcp", { method: "POST", headers: { ...headers, ...session }, body: "{" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: -32700 } });
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

  describe("MCP_HTTP_AUTH=api-key", () => {
    const good = { "api-publickey": "AK-good", "api-privatekey": "secret-good" };
    const checked: string[] = [];
    const checkKeys: KeyCheck = async ({ publicKey }) => {
      checked.push(publicKey);
      if (publicKey === "AK-down") return "unavailable";
      return publicKey === "AK-good" ? "ok" : "refused";
    };
    const keyed = (overrides: Partial<Parameters<typeof mcpHttpApi>[0]> = {}) =>
      api({ auth: { mode: "api-key", checkKeys, timeoutMs: 1_000 }, authFailuresPerMinute: 3, ...overrides });
    const postTo = (
      app: ReturnType<typeof mcpHttpApi>["app"],
      url: string,
      body: unknown,
      extra: Record<string, string> = {},
    ) => app.request(url, { method: "POST", headers: { ...headers, ...extra }, body: JSON.stringify(body) });
    const HTTPS = "https://mcp.test/mcp";
    const listTools = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    const toolNames = async (response: Response) => {
      const text = await response.text();
      const data = text.split("\n").find((line) => line.startsWith("data: "));
      const message = JSON.parse(data ? data.slice(6) : text) as { result: { tools: { name: string }[] } };
      return message.result.tools.map((t) => t.name);
    };

    it("opens a session with write tools for a key pair the exchange accepts, bound to that pair", async () => {
      const { app } = keyed();
      const opened = await postTo(app, HTTPS, initialize, good);
      expect(opened.status).toBe(200);
      expect(checked).toContain("AK-good");
      const session = { "mcp-session-id": opened.headers.get("mcp-session-id")! };
      const names = await toolNames(await postTo(app, HTTPS, listTools, { ...good, ...session }));
      expect(names).toEqual(expect.arrayContaining(["place_order", "cancel_order", "spawn_token", "vote"]));
      // The session id alone, or with another pair, is not the caller.
      expect((await postTo(app, HTTPS, listTools, session)).status).toBe(401);
      const other = { "api-publickey": "AK-good", "api-privatekey": "secret-other" };
      expect((await postTo(app, HTTPS, listTools, { ...other, ...session })).status).toBe(401);
    });

    it("without keys a session is read-only, as with MCP_HTTP_AUTH=none", async () => {
      const { app } = keyed();
      const opened = await postTo(app, HTTPS, initialize);
      const session = { "mcp-session-id": opened.headers.get("mcp-session-id")! };
      const names = await toolNames(await postTo(app, HTTPS, listTools, session));
      expect(names).toContain("get_overview");
      expect(names).not.toContain("place_order");
    });

    it("refuses keys over plain HTTP from afar, one header alone, and when auth is off", async () => {
      const { app } = keyed();
      expect((await postTo(app, "http://mcp.test/mcp", initialize, good)).status).toBe(403);
      expect((await postTo(app, HTTPS, initialize, { "api-publickey": "AK-good" })).status).toBe(401);
      const off = api();
      expect((await postTo(off.app, HTTPS, initialize, good)).status).toBe(403);
    });

    it("answers 401 to a refused pair, 429 past the failures allowed, 503 when the exchange cannot tell", async () => {
      const { app } = keyed();
      const down = await postTo(app, HTTPS, initialize, { "api-publickey": "AK-down", "api-privatekey": "x" });
      expect(down.status).toBe(503);
      const bad = { "api-publickey": "AK-bad", "api-privatekey": "x" };
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await postTo(app, HTTPS, initialize, bad)).status);
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      // A client over its failures is refused before any pair is checked, a good one too.
      expect((await postTo(app, HTTPS, initialize, good)).status).toBe(429);
    });

    it("takes keys over plain HTTP behind a proxy that says the client came over HTTPS", async () => {
      const { app } = keyed({ trustProxy: true });
      const forwarded = { "x-forwarded-proto": "https", "x-forwarded-for": "203.0.113.9" };
      expect((await postTo(app, "http://mcp.test/mcp", initialize, { ...good, ...forwarded })).status).toBe(200);
      const plain = { "x-forwarded-proto": "http", "x-forwarded-for": "203.0.113.9" };
      expect((await postTo(app, "http://mcp.test/mcp", initialize, { ...good, ...plain })).status).toBe(403);
    });
  });
});
