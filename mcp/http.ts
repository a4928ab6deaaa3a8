import { randomUUID } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { type Context, Hono } from "hono";
import { clientIp, createRateLimiter } from "../lib/http/index.ts";
import { limitRequests } from "./request-limit.ts";
import { createMcpServer, type McpDeps } from "./server.ts";

export interface McpHttpOptions {
  /** The deps of a new session; `ip` is the client's, for the in-process reads' per-IP quota. */
  depsFor: (ip: string) => McpDeps;
  callsPerMinute: number;
  maxSessions: number;
  /** New sessions per minute per client IP. */
  sessionsPerMinute: number;
  /** A session without a request (or a notification sent) this long is closed. */
  idleMs: number;
  /** Browser origins allowed to call /mcp (DNS-rebinding guard); requests without Origin pass. */
  webOrigins: readonly string[];
  trustProxy: boolean;
  now?: () => number;
  log?: (message: string) => void;
}

interface Session {
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
}

const rpcError = (status: number, code: number, message: string, headers?: Record<string, string>) =>
  Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });

/**
 * Streamable HTTP at /mcp: one McpServer per session (Mcp-Session-Id), sessions bounded in all
 * and per IP per minute, closed after `idleMs` idle, every request of a session under its quota.
 * Protocol errors stay JSON-RPC bodies (the transport returns them, the API's error mapper never
 * sees them).
 */
export function mcpHttpApi(options: McpHttpOptions) {
  const now = options.now ?? Date.now;
  const sessions = new Map<string, Session>();
  const openings = createRateLimiter({ limit: options.sessionsPerMinute, now });
  const reaper = setInterval(
    () => {
      const t = now();
      for (const [id, session] of sessions)
        if (t - session.lastSeen > options.idleMs) {
          sessions.delete(id);
          void session.transport.close().catch(() => {});
        }
    },
    Math.min(options.idleMs, 30_000),
  );
  reaper.unref();

  const app = new Hono();
  app.all("/mcp", async (c: Context) => {
    const origin = c.req.header("origin");
    if (origin !== undefined && !options.webOrigins.includes(origin))
      return rpcError(403, -32000, "Forbidden: origin not allowed");
    const id = c.req.header("mcp-session-id");
    if (id !== undefined) {
      const session = sessions.get(id);
      if (!session) return rpcError(404, -32001, "Session not found");
      session.lastSeen = now();
      return session.transport.handleRequest(c.req.raw);
    }
    const body: unknown = c.req.method === "POST" ? await c.req.json().catch(() => undefined) : undefined;
    const initializes = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
    if (!initializes) return rpcError(400, -32000, "Bad Request: no valid session id");
    const ip = clientIp(c, { trustProxy: options.trustProxy });
    if (sessions.size >= options.maxSessions)
      return rpcError(503, -32000, "Too many MCP sessions", { "Retry-After": "60" });
    const decision = openings.hit(ip);
    if (!decision.allowed)
      return rpcError(429, -32029, "RATE_LIMITED", { "Retry-After": String(decision.resetSeconds) });

    const server = createMcpServer(options.depsFor(ip), { callsPerMinute: options.callsPerMinute });
    const session: Session = {
      server,
      transport: new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, session),
        onsessionclosed: (sessionId) => void sessions.delete(sessionId),
      }),
      lastSeen: now(),
    };
    session.transport.onclose = () => {
      if (session.transport.sessionId) sessions.delete(session.transport.sessionId);
    };
    await server.connect(session.transport);
    limitRequests(session.transport, options.callsPerMinute, now);
    // Notifications on the session's stream count as activity: a subscriber may only listen.
    const send = session.transport.send.bind(session.transport);
    session.transport.send = (message, sendOptions) => {
      session.lastSeen = now();
      return send(message, sendOptions);
    };
    return session.transport.handleRequest(c.req.raw, { parsedBody: body });
  });

  return {
    app,
    sessionCount: () => sessions.size,
    async close() {
      clearInterval(reaper);
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((session) => session.transport.close().catch(() => {})));
    },
  };
}
