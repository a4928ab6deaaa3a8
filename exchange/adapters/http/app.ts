import { depthApi } from "./depth.ts";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { every } from "hono/combine";
import { z } from "zod";
import packageJson from "../../../package.json" with { type: "json" };
import {
  ApiError,
  browserCors,
  clientIp,
  type AuthFailureGuard,
  createAuthFailureGuard,
  createRateLimiter,
  errorHandler,
  EXPOSED_HEADERS,
  notFound,
  OpenAPIHono,
  openApiDocument,
  rateLimit,
  requestId,
  SIGNED_REQUEST_HEADERS,
  signedUrlOf,
  type ErrorMappingOptions,
} from "../../../lib/http/index.ts";
import {
  DEFAULT_MAX_FUTURE_MS,
  signatureRejection,
  signedRequest,
  verifySignedRequest,
  type ReplayGuard,
  type SignedVariables,
} from "../auth/index.ts";
import type { MarketData } from "../marketdata/market-data.ts";
import type { Exchange } from "../../application/index.ts";
import { knownErrorAnswer } from "./domain-errors.ts";
import { accountApi, CSRF_HEADER, SESSION_COOKIE } from "./account.ts";
import { adminApi } from "./admin.ts";
import { aggregatorApi } from "./aggregator.ts";
import { ALIAS_BASE } from "./alias.ts";
import { docsPage } from "./docs-page.ts";
import { internalApi } from "./internal.ts";
import { publicApi } from "./public.ts";
import { requireSecret } from "./secret.ts";
import { serve } from "./serve.ts";
import { sessionAuth, wantsSession } from "./session-auth.ts";
import type { WsTickets } from "./ws-tickets.ts";
import { marketSummary } from "./summary.ts";
import { ordersApi } from "./orders.ts";
import { walletApi } from "./wallet.ts";
import type { ChainGateway } from "../chain/index.ts";

export interface ExchangeAppOptions {
  readonly exchange: Exchange;
  readonly marketData: MarketData;
  readonly adminToken: string;
  readonly serviceSecret: string;
  /** Requests per minute per client IP on the public (anonymous) endpoints. */
  readonly rateLimitPerMinute: number;
  /** Requests per minute per API key on the signed endpoints. */
  readonly signedRateLimitPerMinute: number;
  /** Failed authentications per minute per client IP (signatures, admin token, service secret) before 429. */
  readonly authFailureLimitPerMinute: number;
  /**
   * The failed-authentication guard, when it is shared (server/start.ts shares it with /ws LOGINs);
   * else one is made from authFailureLimitPerMinute, keyed by client IP.
   */
  readonly authFailures?: AuthFailureGuard;
  readonly trustProxy?: boolean;
  /**
   * Scheme, host and port clients use (e.g. https://api.example.com) when a proxy stands in
   * front: signatures cover the URL the client sent, which the server cannot see behind TLS
   * termination. Unset: X-Forwarded-Proto and X-Forwarded-Host when trustProxy, else the request's own URL.
   */
  readonly publicUrl?: string;
  /** Most ms an API-Timestamp may be behind server time. */
  readonly timestampWindowMs: number;
  /** Most ms an API-Timestamp may be ahead of server time (default 1 000); see auth/verify.ts. */
  readonly timestampMaxFutureMs?: number;
  readonly requireTimestamp: boolean;
  /**
   * Remembers accepted timestamped signatures, one for every route. Its startedAt is the process's
   * start (server/start.ts), which must be before anything is served: see auth/verify.ts.
   */
  readonly replay: ReplayGuard;
  readonly now?: () => number;
  /** Clock of the rate limiters (tests). */
  readonly rateLimitClock?: () => number;
  readonly log?: ErrorMappingOptions["log"];
  /** Origins whose pages may call /api/* and its aliases from a browser (CORS, WEB_ORIGIN); none unless given. */
  readonly webOrigins?: readonly string[];
  /** The chain a web account's Sign in with Ethereum message must name (CHAIN_ID). */
  readonly chainId?: number;
  /** The web session's /ws tickets, shared with the stream server's LOGIN (server/start.ts). */
  readonly wsTickets?: WsTickets;
  /** The exchange joined to its chain (CHAIN_GATEWAY): deposit addresses, pending deposits, reserves. */
  readonly gateway?: ChainGateway;
}

/** SPEC.md: "<AssemblyName> v<MAJOR>.<MINOR>.<BUILD>.<REVISION>", the running version. */
export const HEALTHCHECK = `AgentExchange.Api v${packageJson.version}.0`;

/**
 * Paths of the signed trading and wallet API (everything else under /api is public). Hono's
 * "/api/orders/*" also matches "/api/orders" itself, so each request is checked (and counted) once.
 */
const SIGNED = [
  "/api/orders/*",
  "/api/balances",
  "/api/deposits/*",
  "/api/withdrawals",
  "/api/currencies/user/commissions",
];

const unavailable = (message: string) => new ApiError(503, "UNAVAILABLE", message);

/** The exchange's HTTP server: {base_url} and {aggregator_url}, plus internal and admin endpoints. */
export function createExchangeApp(options: ExchangeAppOptions): OpenAPIHono {
  const { exchange, marketData } = options;
  const now = options.now ?? Date.now;
  const trustProxy = options.trustProxy ?? false;
  const app = new OpenAPIHono();
  app.use(requestId());
  // The web app's origins only, on what a browser calls (not /internal or /admin); first, so
  // preflights spend no quota.
  const cors = browserCors({
    origins: options.webOrigins ?? [],
    methods: ["GET", "POST", "DELETE"],
    allowHeaders: [...SIGNED_REQUEST_HEADERS, CSRF_HEADER],
    exposeHeaders: [...EXPOSED_HEADERS, "Idempotent-Replay"],
    // The web account's session cookie (httpOnly, SameSite=Strict) rides on the app's own calls.
    credentials: true,
  });
  app.use("/api/*", cors);
  app.use(`${ALIAS_BASE}/*`, cors);
  // Liveness for monitors: before every other middleware, so neither rate limits nor body limits apply.
  serve(
    app,
    "",
    {
      method: "get",
      path: "/api/healthcheck",
      tag: "Service",
      summary: "Liveness: a JSON string <AssemblyName> v<MAJOR>.<MINOR>.<BUILD>.<REVISION>; not rate-limited",
      access: "public",
      unlimited: true,
      response: z.string().meta({ example: HEALTHCHECK }),
    },
    ({ c }) => c.json(HEALTHCHECK),
  );
  // Readiness for load balancers: 503 while the database is away (reads still served, writes refused).
  serve(
    app,
    "",
    {
      method: "get",
      path: "/api/ready",
      tag: "Service",
      summary:
        "Readiness: {ready: true} when commands are taken, 503 UNAVAILABLE while the database is away; not rate-limited",
      access: "public",
      unlimited: true,
      response: z.object({ ready: z.literal(true) }),
      errors: [
        {
          status: 503,
          code: "UNAVAILABLE",
          when: "the database is away: writes are refused, reads are served from what was committed",
        },
      ],
    },
    ({ c }) => {
      if (!exchange.ready) throw unavailable("The database is unavailable; the exchange is reconnecting");
      return c.json({ ready: true as const });
    },
  );
  // Only where a body can arrive: bodyLimit makes @hono/node-server build a full web Request,
  // which costs a public GET about 40% of its throughput for nothing.
  const limitBody = bodyLimit({
    maxSize: 64 * 1024,
    onError: () => {
      throw new ApiError(413, "PAYLOAD_TOO_LARGE", "Request body over 64 KiB");
    },
  });
  app.use((c, next) => (c.req.method === "GET" || c.req.method === "HEAD" ? next() : limitBody(c, next)));

  const keyOf = (publicKey: string) => exchange.resolveKey(publicKey);
  const requestUrl = signedUrlOf({ publicUrl: options.publicUrl, trustProxy });
  // One guard for every route that accepts a signature, so a signature is used once anywhere.
  const replay = options.replay;
  const timestampMaxFutureMs = options.timestampMaxFutureMs ?? DEFAULT_MAX_FUTURE_MS;
  const signed = signedRequest({
    resolveKey: keyOf,
    timestampWindowMs: options.timestampWindowMs,
    timestampMaxFutureMs,
    requireTimestamp: options.requireTimestamp,
    now,
    requestUrl,
    replay,
  });
  const signedLimiter = createRateLimiter({ limit: options.signedRateLimitPerMinute, now: options.rateLimitClock });
  const perKey = rateLimit({ limiter: signedLimiter, keyOf: (c) => `key:${c.req.header("API-PublicKey")}` });
  // A web session's calls count per user, at the signed quota: a browser tab is one more client.
  const perUser = rateLimit({
    limiter: signedLimiter,
    keyOf: (c) => `user:${(c.get("auth" as never) as SignedVariables["auth"]).userId}`,
  });
  const perIp = rateLimit({
    limiter: createRateLimiter({ limit: options.rateLimitPerMinute, now: options.rateLimitClock }),
    keyOf: (c) => clientIp(c, { trustProxy }),
  });
  // Checked before any credential is: a flood of bad signatures, tokens or secrets from one
  // client gets 429 at the cost of a map lookup, and other clients are unaffected.
  const authFailures =
    options.authFailures ??
    createAuthFailureGuard({
      limit: options.authFailureLimitPerMinute,
      now: options.rateLimitClock,
      keyOf: (c) => clientIp(c, { trustProxy }),
    });
  // Reached only past a good signature and the key's rate limit: the key's last use, for the web
  // account's key list.
  const noteUse: MiddlewareHandler<{ Variables: SignedVariables }> = (c, next) => {
    exchange.noteKeyUse(c.get("auth").publicKey);
    return next();
  };
  // "signed-or-session": a request with API-PublicKey, or without the session cookie, is checked
  // as a signed one (as it always was: no signature and no session is 401); else as the session's.
  const signedPath = every(authFailures.wrap(signed), perKey, noteUse);
  const sessionPath = every(sessionAuth({ exchange, origins: options.webOrigins ?? [] }), perUser);
  for (const path of SIGNED) app.use(path, (c, next) => (wantsSession(c) ? sessionPath(c, next) : signedPath(c, next)));
  app.use("/api/*", async (c, next) => (isSigned(c.req.path) ? next() : perIp(c, next)));
  // The /v1/spot/market aliases of the public routes count against the same per-IP quota.
  app.use(`${ALIAS_BASE}/*`, perIp);

  // GET /api/deals may be signed: then isUserBuyer is filled for the caller's own deals.
  const caller = async (c: Context) => {
    const publicKey = c.req.header("API-PublicKey");
    if (publicKey === undefined) return undefined;
    authFailures.check(c);
    const verdict = await verifySignedRequest({
      method: c.req.method,
      url: requestUrl(c),
      body: "",
      headers: { publicKey, signature: c.req.header("API-Signature"), timestamp: c.req.header("API-Timestamp") },
      resolveKey: keyOf,
      now,
      windowMs: options.timestampWindowMs,
      maxFutureMs: timestampMaxFutureMs,
      requireTimestamp: options.requireTimestamp,
      replay,
    });
    if (!verdict.ok) {
      const rejection = signatureRejection(verdict);
      throw (rejection.status === 401 ? authFailures.fail(c) : undefined) ?? rejection;
    }
    return verdict.userId;
  };

  app.route(
    "/",
    accountApi({
      exchange,
      origins: options.webOrigins ?? [],
      chainId: options.chainId ?? 31337,
      nowMs: now,
      authFailures,
      requestUrl,
      ...(options.wsTickets ? { wsTickets: options.wsTickets } : {}),
    }),
  );
  app.route("/api/orders", ordersApi(exchange));
  app.route("/api", walletApi(exchange, options.gateway));
  const summary = marketSummary({ exchange, marketData, nowMs: now });
  app.route("/", publicApi({ exchange, marketData, caller, nowMs: now, summary }));
  app.route("/api", depthApi(exchange));
  app.route("/api/marketdata/getaggregator", aggregatorApi({ exchange, marketData, summary, nowMs: now }));

  // Only a wrong service secret counts against the caller here, not the verdicts on the
  // signatures it forwards: those are its users' failures, and it answers for them.
  app.use("/internal/*", authFailures.wrap(requireSecret("X-Service-Secret", options.serviceSecret)));
  app.route(
    "/internal",
    internalApi(exchange, {
      timestampWindowMs: options.timestampWindowMs,
      timestampMaxFutureMs,
      requireTimestamp: options.requireTimestamp,
      now,
      replay,
    }),
  );
  app.use("/admin/*", authFailures.wrap(requireSecret("Authorization", options.adminToken, "Bearer")));
  app.route("/admin", adminApi(exchange, options.gateway));

  // Generated once every route is mounted: the document is theirs.
  const document = openApiDocument(app, {
    openapi: "3.0",
    sessionCookie: SESSION_COOKIE,
    info: {
      title: "Agent exchange API",
      version: `${packageJson.version}.0`,
      description:
        "Public market data and the aggregator namespace (anonymous), and the signed trading and wallet API. Signing: API-PublicKey and API-Signature headers; " +
        "signature = lowercase hex HMAC-SHA256, keyed with the private key, of publicKey + full request URL + body (empty for GET and DELETE), with the " +
        "API-Timestamp header's value appended when that header is sent; a timestamped signature is accepted once (a replay is 401), one without the header " +
        "can be replayed unless the server requires timestamps. The web app may call the trading and wallet routes with its web account's session instead " +
        "(the exchange_session cookie, and X-CSRF-Token on writes, from the web app's origin only). Errors are {code, message}. Decimals are exact JSON numbers. " +
        "The operator's /admin endpoints (admin token) and the platform's /internal endpoint (service secret) are listed too.",
    },
  });
  app.get("/swagger/v1/swagger.json", (c) => c.json(document));
  app.get("/swagger", (c) => c.html(docsPage(document)));

  app.notFound((c) => {
    throw notFound(`No endpoint ${c.req.method} ${c.req.path}`);
  });
  app.onError(
    errorHandler({
      log: options.log,
      classify: knownErrorAnswer,
    }),
  );
  return app;
}

function isSigned(path: string): boolean {
  return SIGNED.some((pattern) =>
    pattern.endsWith("/*") ? path === pattern.slice(0, -2) || path.startsWith(pattern.slice(0, -1)) : path === pattern,
  );
}
