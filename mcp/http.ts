import { randomUUID } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { type Context, Hono } from "hono";
import { ApiError, clientIp, createAuthFailureGuard, createRateLimiter } from "../lib/http/index.ts";
import {
  type KeyCheck,
  keyDigest,
  type McpHttpAuthMode,
  presentedKeys,
  sameDigest,
  secureTransport,
} from "./http-auth.ts";
import { readJsonBody } from "./request-body.ts";
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
  /**
   * Write tools over HTTP (http-auth.ts): `none` lists none; `api-key` takes the caller's key
   * pair from the session's headers, checked by `checkKeys` when the session opens.
   */
  auth?: { mode: "none" } | { mode: Exclude<McpHttpAuthMode, "none">; checkKeys: KeyCheck; timeoutMs: number };
  /** Failed authentications per minute per client IP before 429. */
  authFailuresPerMinute?: number;
  now?: () => number;
  log?: (message: string) => void;
}

interface Session {
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  /** The key pair the session was opened with; every request of it must present the same. */
  keys?: Buffer;
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
  const auth = options.auth ?? { mode: "none" };
  const failures = createAuthFailureGuard({ limit: options.authFailuresPerMinute ?? 30, now });
  /** A refusal of credentials: counted against the client, 429 once it has failed too often. */
  const refuse = (ip: string, status: number, message: string) => {
    const limited = failures.failClient(ip);
    return limited ? rpcError(429, -32029, "RATE_LIMITED") : rpcError(status, -32001, message);
  };
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
    const ip = clientIp(c, { trustProxy: options.trustProxy });
    const presented = presentedKeys(c.req.raw.headers);
    if (presented !== undefined) {
      try {
        failures.checkClient(ip);
      } catch (error) {
        if (error instanceof ApiError) return rpcError(429, -32029, "RATE_LIMITED");
        throw error;
      }
    }
    if (presented === "partial")
      return refuse(ip, 401, "Unauthorized: send both API-PublicKey and API-PrivateKey, or neither");
    const id = c.req.header("mcp-session-id");
    if (id !== undefined) {
      const session = sessions.get(id);
      if (!session) return rpcError(404, -32001, "Session not found");
      if (!sameDigest(session.keys, presented && keyDigest(presented)))
        return refuse(ip, 401, "Unauthorized: not the key pair this session was opened with");
      session.lastSeen = now();
      if (c.req.method !== "POST") return session.transport.handleRequest(c.req.raw);
      const posted = await readJsonBody(c);
      if (!posted.ok) return rpcError(posted.status, posted.status === 413 ? -32000 : -32700, posted.message);
      return session.transport.handleRequest(c.req.raw, { parsedBody: posted.value });
    }
    const posted = c.req.method === "POST" ? await readJsonBody(c) : undefined;
    if (posted?.ok === false) return rpcError(posted.status, posted.status === 413 ? -32000 : -32700, posted.message);
    const body = posted?.value;
    const initializes = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
    if (!initializes) return rpcError(400, -32000, "Bad Request: no valid session id");
    if (sessions.size >= options.maxSessions)
      return rpcError(503, -32000, "Too many MCP sessions", { "Retry-After": "60" });
    const decision = openings.hit(ip);
    if (!decision.allowed)
      return rpcError(429, -32029, "RATE_LIMITED", { "Retry-After": String(decision.resetSeconds) });
    if (presented !== undefined) {
      if (auth.mode === "none")
        return rpcError(403, -32001, "Forbidden: this server takes no credentials over HTTP (MCP_HTTP_AUTH=none)");
      if (!secureTransport(c.req.url, options.trustProxy ? c.req.header("x-forwarded-proto") : undefined, ip))
        return rpcError(403, -32001, "Forbidden: API keys are taken over HTTPS only");
      const verdict = await auth.checkKeys(presented, AbortSignal.timeout(auth.timeoutMs));
      if (verdict === "unavailable")
        return rpcError(503, -32000, "The exchange cannot check the key pair now", { "Retry-After": "5" });
      if (verdict === "refused") return refuse(ip, 401, "Unauthorized: the exchange refused this key pair");
    }

    const server = createMcpServer(options.depsFor(ip), {
      callsPerMinute: options.callsPerMinute,
      exchangeKeys: presented,
    });
    const session: Session = {
      keys: presented && keyDigest(presented),
      server,
      transport: new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        // A tool call's answer as one JSON body, not a one-event stream: notifications travel on
        // the session's GET stream, and no tool sends progress.
        enableJsonResponse: true,
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
