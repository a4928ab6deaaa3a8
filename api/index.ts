import {
  browserCors,
  clientIp,
  createAuthFailureGuard,
  createRateLimiter,
  errorHandler,
  notFound,
  OpenAPIHono,
  openApiDocument,
  rateLimit,
  type RateLimiter,
  EXPOSED_HEADERS,
  requestId,
  SIGNED_REQUEST_HEADERS,
  signedUrlOf,
} from "../lib/http/index.ts";
import type { ErrorMappingOptions } from "../lib/http/index.ts";
import { agentRoutes, agentsApi } from "./agents/index.ts";
import type { Db } from "./db.ts";
import { launchpadApi, launchpadRoutes } from "./launchpad/index.ts";
import { type ExplorerOptions, mountExplorer } from "./explorer/index.ts";
import { systemClock, type WallClock } from "./shared/clock.ts";
import { createReads, type Reads } from "./shared/reads.ts";
import { DEFAULT_STREAM_SETTINGS, type StreamSettings, streamRoutes, streamsApi } from "./streams/index.ts";
import { DEFAULT_WRAPPED_NATIVE_PRICE } from "./shared/units.ts";
import { writeRoutes, writesApi, writesNotConfigured, type WritesRuntime } from "./writes/index.ts";
import {
  createLiveFeeds,
  exchangeKeyCheck,
  type Fetcher,
  type LocalRead,
  type McpHttpAuthMode,
  mcpHttpApi,
} from "../mcp/index.ts";

export type { Db } from "./db.ts";

export interface EcosystemApiOptions {
  /** Ponder's read-only Drizzle (`db` of "ponder:api"), or a test database. */
  db: Db;
  /** Wall clock in Unix seconds; the time windows use the later of it and the chain head. */
  now?: WallClock;
  /** Requests per minute per client IP on /api/*, /sql/* and /graphql. */
  rateLimitPerMinute: number;
  /**
   * Reference price of one whole wrapped native token in stable base units (6 decimals): the
   * common unit of tvlStable and volume24hStable and of the tvl and volume ranks.
   */
  wrappedNativePrice?: bigint;
  /** Take the client IP from X-Forwarded-For (behind one trusted proxy). */
  trustProxy?: boolean;
  /** Millisecond clock of the rate limiter (tests). */
  rateLimitClock?: () => number;
  log?: ErrorMappingOptions["log"];
  /** Ponder's SQL and GraphQL endpoints with their bounds (Ponder serves them; tests may stub them). */
  explorer?: ExplorerOptions;
  /** The signed writes (spawn, vote); without them those routes answer 503. */
  writes?: WritesRuntime;
  /** Failed authentications per minute per client IP on the signed writes before 429. */
  authFailureLimitPerMinute?: number;
  /** The origin clients reach the API at, when a proxy hides it (signatures cover the full URL). */
  publicUrl?: string;
  /** The server-sent event streams' polling and limits (DEFAULT_STREAM_SETTINGS unless given). */
  streams?: StreamSettings;
  /** Origins whose pages may call the API from a browser (CORS, WEB_ORIGIN); none unless given. */
  webOrigins?: readonly string[];
  /** The MCP server at /mcp (mcp/README.md); not mounted unless given. */
  mcp?: EcosystemMcpOptions;
}

export interface EcosystemMcpOptions {
  /** The exchange's public REST, which the market-data tools read. */
  exchangeUrl: string;
  specPath: string;
  timeoutMs: number;
  callsPerMinute: number;
  maxSessions: number;
  sessionsPerMinute: number;
  idleMs: number;
  /** Write tools over HTTP (mcp/http-auth.ts); none unless given. */
  httpAuth?: McpHttpAuthMode;
}

/** The reads (GET, the event streams included) and the signed writes (POST). */
export const READ_ROUTES = [...agentRoutes, ...launchpadRoutes, ...streamRoutes];
export const API_ROUTES = [...READ_ROUTES, ...writeRoutes];

/**
 * The ecosystem read API: /api/agents/*, /api/launchpad/* and /openapi.json, and Ponder's
 * /sql/* and /graphql behind the same rate limit. Ponder serves it (src/api/index.ts); tests run
 * it on any Drizzle database.
 */
export function createEcosystemApi(options: EcosystemApiOptions): OpenAPIHono {
  const pricing = { wrappedNativePrice: options.wrappedNativePrice ?? DEFAULT_WRAPPED_NATIVE_PRICE };
  const reads = createReads();
  const deps = { db: options.db, wallClock: options.now ?? systemClock, pricing, reads };
  const limiter = createRateLimiter({ limit: options.rateLimitPerMinute, now: options.rateLimitClock });
  const trustProxy = options.trustProxy ?? false;
  const app = new OpenAPIHono();
  app.use(requestId());
  // The web app's origins only, with the headers its signed writes and stream resumes send;
  // before the rate limit, which a browser's own preflights must not spend.
  const cors = browserCors({
    origins: options.webOrigins ?? [],
    methods: ["GET", "POST"],
    allowHeaders: [...SIGNED_REQUEST_HEADERS, "Idempotency-Key", "Last-Event-ID"],
    exposeHeaders: [...EXPOSED_HEADERS],
  });
  for (const path of ["/api/*", "/openapi.json", ...(options.explorer ? ["/sql/*", "/graphql"] : [])]) {
    app.use(path, cors);
  }
  // One quota per client across the reads and the explorer endpoints: a query is a request.
  const perIp = rateLimit({ limiter, keyOf: (c) => clientIp(c, { trustProxy }) });
  app.use("/api/*", perIp);
  if (options.explorer) {
    app.use("/sql/*", perIp);
    app.use("/graphql", perIp);
    mountExplorer(app, options.explorer);
  }
  app.route("/api/agents", agentsApi(deps));
  app.route("/api/launchpad", launchpadApi(deps));
  const streams = streamsApi({
    db: options.db,
    trustProxy,
    settings: options.streams ?? DEFAULT_STREAM_SETTINGS,
    log: options.log,
  });
  app.route("/api/agents/action-logs", streams.actionLogs);
  app.route("/api/launchpad", streams.launchpad);
  app.route(
    "/api",
    writesApi({
      runtime: options.writes ?? writesNotConfigured,
      guard: createAuthFailureGuard({
        limit: options.authFailureLimitPerMinute ?? 30,
        keyOf: (c) => clientIp(c, { trustProxy }),
        now: options.rateLimitClock,
      }),
      urlOf: signedUrlOf({ publicUrl: options.publicUrl, trustProxy }),
    }),
  );
  // Generated once the routes are mounted: the document is theirs.
  const document = openApiDocument(app, {
    openapi: "3.1",
    info: {
      title: "Agent ecosystem API",
      version: "1.0.0",
      description:
        "Workers, action log and launchpad reads of the agent-token ecosystem, served from the indexed chain, " +
        "and the signed writes (spawn, vote) relayed on-chain. " +
        "Conventions (addresses, times, amounts, pagination, errors, rate limit) are in api/README.md.",
    },
  });
  app.get("/openapi.json", (c) => c.json(document));
  if (options.mcp)
    mountMcp(app, options.mcp, {
      reads,
      limiter,
      trustProxy,
      webOrigins: options.webOrigins ?? [],
      publicUrl: options.publicUrl,
      log: options.log,
    });
  app.all("/api/*", (c) => {
    throw notFound(`No endpoint ${c.req.method} ${c.req.path}`);
  });
  app.onError(errorHandler({ log: options.log }));
  return app;
}

/**
 * /mcp: the tools call this API's reads in process (no socket, no Request: the functions its
 * routes serve), each call spending the MCP client's /api quota; anything else (the live
 * resources follow its SSE streams, the signed writes) goes through the app with the client's IP.
 */
function mountMcp(
  app: OpenAPIHono,
  options: EcosystemMcpOptions,
  context: {
    reads: Reads;
    limiter: RateLimiter;
    trustProxy: boolean;
    webOrigins: readonly string[];
    publicUrl?: string;
    log?: ErrorMappingOptions["log"];
  },
) {
  const inProcess =
    (ip: string | undefined): Fetcher =>
    (url, init) => {
      const headers = new Headers(init?.headers);
      if (ip !== undefined && context.trustProxy) headers.set("x-forwarded-for", ip);
      const env = ip === undefined ? undefined : { incoming: { socket: { remoteAddress: ip } } };
      return Promise.resolve(app.request(url, { ...init, headers }, env));
    };
  const local = (ip: string): LocalRead => context.reads.localFor({ limiter: context.limiter, ip, log: context.log });
  const log = (message: string) => context.log?.(`mcp: ${message}`, undefined);
  const feeds = createLiveFeeds({ fetch: inProcess(undefined), base: "", log });
  const exchange = { fetch: globalThis.fetch, base: options.exchangeUrl.replace(/\/+$/, "") };
  // A signed write covers its full URL, and the writes API checks it against the public origin
  // (or the URL app.request makes of a path): the in-process tools speak to that origin.
  const origin = context.publicUrl === undefined ? "http://localhost" : new URL(context.publicUrl).origin;
  const mcp = mcpHttpApi({
    depsFor: (ip) => ({
      ecosystem: { fetch: inProcess(ip), base: origin, local: local(ip) },
      exchange,
      feeds,
      specPath: options.specPath,
      timeoutMs: options.timeoutMs,
      log,
    }),
    callsPerMinute: options.callsPerMinute,
    maxSessions: options.maxSessions,
    sessionsPerMinute: options.sessionsPerMinute,
    idleMs: options.idleMs,
    webOrigins: context.webOrigins,
    trustProxy: context.trustProxy,
    auth:
      options.httpAuth === "api-key"
        ? { mode: "api-key", checkKeys: exchangeKeyCheck(exchange), timeoutMs: options.timeoutMs }
        : { mode: "none" },
    log,
  });
  app.route("/", mcp.app);
}
