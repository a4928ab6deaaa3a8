import { createHash } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import { ApiError, type AuthFailureGuard, OpenAPIHono } from "../../../lib/http/index.ts";
import type { Exchange, WebSessionRow } from "../../application/index.ts";
import { type SiweRefusal, verifySiwe } from "../auth/siwe.ts";
import { serve } from "./serve.ts";
import { WS_TICKET_TTL_MS, WsTickets } from "./ws-tickets.ts";

// The exchange's web account: Sign in with Ethereum opens a session (an httpOnly, SameSite=Strict
// cookie), and the session manages the account's API keys, the key pairs SPEC.md's signed
// requests use. Every write also needs the session's CSRF token in X-CSRF-Token: a custom header
// no form can send and a preflight only the web app's origins pass.

export const SESSION_COOKIE = "exchange_session";
export const CSRF_HEADER = "X-CSRF-Token";
/** Live keys one account may hold: enough for every bot a person runs, not a store for a flood. */
export const MAX_KEYS_PER_ACCOUNT = 20;

export interface AccountApiOptions {
  readonly exchange: Exchange;
  /** The URL a client used (publicUrl or, behind a trusted proxy, X-Forwarded-*): its scheme makes the cookie Secure. */
  readonly requestUrl: (c: Context) => string;
  /** The web app's origins (WEB_ORIGIN): a sign-in message must be for one of them. */
  readonly origins: readonly string[];
  readonly chainId: number;
  readonly nowMs: () => number;
  readonly authFailures: AuthFailureGuard;
  /** One-use tickets for the /ws user stream (shared with the stream server, server/start.ts). */
  readonly wsTickets?: WsTickets;
}

/** The CSRF token of a session: derived from its secret token, so nothing more is stored. */
export const csrfTokenOf = (sessionToken: string) =>
  createHash("sha256").update(`csrf:${sessionToken}`).digest("base64url");

type AccountVariables = { session: WebSessionRow; sessionToken: string };

const unauthorized = (message: string) => new ApiError(401, "UNAUTHORIZED", message);

const REFUSAL_STATUS: Record<SiweRefusal, 400 | 401> = {
  malformed: 400,
  domain: 401,
  chain: 401,
  stale: 401,
  nonce: 401,
  signature: 401,
};

const accountSchema = z.object({
  userId: z.uuid(),
  address: z.string().describe("The signed-in address, lower case"),
  level: z.number().int(),
  sessionExpiresAt: z.number().int().describe("Epoch ms"),
});
/** The account with the session's CSRF token: every answer that says who is signed in. */
const signedInSchema = accountSchema.extend({
  csrfToken: z.string().describe(`Send as ${CSRF_HEADER} on every write`),
});
const keySchema = z.object({
  publicKey: z.string(),
  createdAt: z.number().int().describe("Epoch ms"),
  lastUsedAt: z
    .number()
    .int()
    .nullable()
    .describe("Epoch ms of the last request it signed that the exchange accepted; null: never"),
});
const SESSION_ERRORS = [
  { status: 401, code: "UNAUTHORIZED", when: "no session cookie, or an unknown, expired or revoked session" },
  { status: 429, code: "RATE_LIMITED", when: "too many failed authentications from this client" },
];
const WRITE_ERRORS = [
  ...SESSION_ERRORS,
  {
    status: 403,
    code: "FORBIDDEN",
    when: `the ${CSRF_HEADER} header is missing or not the session's, or the Origin is not the web app's`,
  },
];

export function accountApi(options: AccountApiOptions) {
  const { exchange, authFailures } = options;
  const app = new OpenAPIHono<{ Variables: AccountVariables }>();

  const allowedOrigins = new Set(options.origins);
  // Every cookie route: answers are the user's own (never cached), and a write must come from
  // the web app's page (its Origin; a cross-site form or a sibling host's script carries another)
  // as JSON, which no form can send without a preflight. This guards the sign-in too, so no
  // page can sign a visitor into the attacker's account (login CSRF).
  const cookieRoute: MiddlewareHandler = async (c, next) => {
    c.header("Cache-Control", "private, no-store");
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      // A browser sends Origin with every cross-origin write; a client without one is no browser
      // (and could send any Origin it liked), so only a foreign Origin is refused.
      const origin = c.req.header("Origin");
      if (origin !== undefined && !allowedOrigins.has(origin))
        throw new ApiError(403, "FORBIDDEN", "web account writes come from the web app's origin only");
      const signIn = c.req.method === "POST" && c.req.path === "/api/auth/session";
      if (signIn && !/^application\/json\b/i.test(c.req.header("Content-Type") ?? ""))
        throw new ApiError(400, "INVALID_PARAM", "body: Content-Type must be application/json");
    }
    await next();
  };
  // A session for every /api/account route (and sign-out); CSRF on writes. A missing or dead
  // cookie is no failed authentication (a 256-bit token is not guessed; an old tab should not
  // spend the budget the user's bots share): it is a plain 401.
  const session: MiddlewareHandler<{ Variables: AccountVariables }> = async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE);
    const row = token === undefined ? undefined : exchange.webSessions.resolve(token);
    if (token === undefined || row === undefined) throw unauthorized("Sign in first: no live session");
    if (c.req.method !== "GET" && c.req.header(CSRF_HEADER) !== csrfTokenOf(token))
      throw new ApiError(403, "FORBIDDEN", `${CSRF_HEADER} is missing or not this session's`);
    c.set("session", row);
    c.set("sessionToken", token);
    await next();
  };
  // Hono's "/api/account/*" matches "/api/account" itself too.
  app.use("/api/account/*", cookieRoute, session);
  app.use("/api/auth/*", cookieRoute);
  app.use("/api/auth/session", async (c, next) => (c.req.method === "DELETE" ? session(c, next) : next()));

  const accountView = (row: WebSessionRow, token: string) => {
    const user = exchange.user(row.userId);
    if (user === undefined) return null;
    return {
      userId: user.id,
      address: user.address ?? "",
      level: user.level,
      sessionExpiresAt: row.expiresAt,
      csrfToken: csrfTokenOf(token),
    };
  };

  serve(
    app,
    "",
    {
      method: "get",
      path: "/api/auth/session",
      tag: "Web account",
      summary:
        "Whether this browser is signed in: the account (with the session's CSRF token), or null. Never 401: a page asks it before it knows",
      access: "public",
      response: z.object({ account: signedInSchema.nullable() }),
    },
    ({ c }) => {
      const token = getCookie(c, SESSION_COOKIE);
      const row = token === undefined ? undefined : exchange.webSessions.resolve(token);
      return c.json({ account: token === undefined || row === undefined ? null : accountView(row, token) });
    },
  );

  serve(
    app,
    "",
    {
      method: "get",
      path: "/api/auth/nonce",
      tag: "Web account",
      summary: "A one-time nonce for a Sign in with Ethereum message (valid 10 minutes)",
      access: "public",
      response: z.object({ nonce: z.string(), expiresAt: z.number().int().describe("Epoch ms") }),
    },
    ({ c }) => {
      return c.json(exchange.webSessions.issueNonce());
    },
  );

  serve(
    app,
    "",
    {
      method: "post",
      path: "/api/auth/session",
      tag: "Web account",
      summary:
        "Signs in: an EIP-4361 message (for the web app's origin, this chain, with a nonce from /api/auth/nonce) and its signature. Opens a session cookie; a first sign-in creates the account (level 0) bound to the address",
      access: "public",
      body: z.object({ message: z.string().min(1).max(4_096), signature: z.string().max(200) }),
      response: signedInSchema,
      errors: [
        {
          status: 401,
          code: "UNAUTHORIZED",
          when: "another domain or chain, stale or expired, a used nonce, or a wrong signature",
        },
        { status: 429, code: "RATE_LIMITED", when: "too many failed authentications from this client" },
      ],
    },
    async ({ body, c }) => {
      authFailures.check(c);
      const verdict = await verifySiwe(body.message, body.signature, {
        origins: options.origins,
        chainId: options.chainId,
        nowMs: options.nowMs(),
        maxAgeMs: 10 * 60_000,
        nonceIsLive: (nonce) => exchange.webSessions.hasNonce(nonce),
      });
      if (!verdict.ok) {
        if (REFUSAL_STATUS[verdict.reason] === 400) throw new ApiError(400, "INVALID_PARAM", verdict.message);
        throw authFailures.fail(c) ?? unauthorized(verdict.message);
      }
      // Used up before anything is written: the same signed message never opens two sessions.
      if (!exchange.webSessions.consumeNonce(verdict.nonce)) throw unauthorized("the nonce was just used");
      const user = await exchange.accountOfAddress(verdict.address);
      const opened = await exchange.webSessions.open(user.id);
      setCookie(c, SESSION_COOKIE, opened.token, {
        httpOnly: true,
        sameSite: "Strict",
        secure: new URL(options.requestUrl(c)).protocol === "https:",
        path: "/api",
        expires: new Date(opened.expiresAt),
      });
      return c.json({
        userId: user.id,
        address: user.address ?? verdict.address.toLowerCase(),
        level: user.level,
        sessionExpiresAt: opened.expiresAt,
        csrfToken: csrfTokenOf(opened.token),
      });
    },
  );

  serve(
    app,
    "",
    {
      method: "delete",
      path: "/api/auth/session",
      tag: "Web account",
      summary: "Signs out: the session is revoked and its cookie cleared",
      access: "public",
      response: z.object({ signedOut: z.literal(true) }),
      errors: WRITE_ERRORS,
    },
    async ({ c }) => {
      await exchange.webSessions.close(c.get("sessionToken"));
      deleteCookie(c, SESSION_COOKIE, { path: "/api" });
      return c.json({ signedOut: true as const });
    },
  );

  serve(
    app,
    "",
    {
      method: "get",
      path: "/api/account",
      tag: "Web account",
      summary: "The signed-in account, with the session's CSRF token (for a page reloaded since sign-in)",
      access: "public",
      response: signedInSchema,
      errors: SESSION_ERRORS,
    },
    ({ c }) => {
      const view = accountView(c.get("session"), c.get("sessionToken"));
      if (view === null) throw unauthorized("the session's account is gone");
      return c.json(view);
    },
  );

  serve(
    app,
    "",
    {
      method: "get",
      path: "/api/account/keys",
      tag: "Web account",
      summary: "The account's live API keys, oldest first (public keys only)",
      access: "public",
      response: z.object({ items: z.array(keySchema) }),
      errors: SESSION_ERRORS,
    },
    ({ c }) => c.json({ items: exchange.keysOf(c.get("session").userId) }),
  );

  serve(
    app,
    "",
    {
      method: "post",
      path: "/api/account/keys",
      tag: "Web account",
      summary:
        "Creates an API key pair; the private key is in this answer only. It signs requests as SPEC.md's Authentication says",
      access: "public",
      status: 201,
      response: keySchema.extend({ privateKey: z.string() }),
      errors: [
        ...WRITE_ERRORS,
        { status: 400, code: "INVALID_PARAM", when: `the account already has ${MAX_KEYS_PER_ACCOUNT} live keys` },
      ],
    },
    async ({ c }) => {
      const userId = c.get("session").userId;
      if (exchange.keysOf(userId).length >= MAX_KEYS_PER_ACCOUNT)
        throw new ApiError(400, "INVALID_PARAM", `at most ${MAX_KEYS_PER_ACCOUNT} live keys: revoke one first`);
      const pair = await exchange.issueApiKey(userId);
      const created = exchange.keysOf(userId).find((k) => k.publicKey === pair.publicKey);
      return c.json({ ...pair, createdAt: created?.createdAt ?? options.nowMs(), lastUsedAt: null }, 201);
    },
  );

  serve(
    app,
    "",
    {
      method: "delete",
      path: "/api/account/keys/{publicKey}",
      tag: "Web account",
      summary: "Revokes one of the account's keys: requests signed with it are refused from this answer on",
      access: "public",
      params: z.object({ publicKey: z.string().min(1).max(200) }),
      response: z.object({ revoked: z.string().describe("The revoked public key") }),
      errors: [
        ...WRITE_ERRORS,
        { status: 404, code: "NOT_FOUND", when: "no live key of this account has that public key" },
      ],
    },
    async ({ params, c }) => {
      await exchange.revokeApiKey(c.get("session").userId, params.publicKey);
      return c.json({ revoked: params.publicKey });
    },
  );

  const wsTickets = options.wsTickets ?? new WsTickets(options.nowMs);
  serve(
    app,
    "",
    {
      method: "get",
      path: "/api/account/ws-ticket",
      tag: "Web account",
      summary: `A one-use ticket (${WS_TICKET_TTL_MS / 1000} s) for the /ws user stream: send {"method":"LOGIN","params":{"ticket":…}}. The browser's WebSocket carries no session cookie`,
      access: "public",
      response: z.object({ ticket: z.string(), expiresAt: z.number().int().describe("Epoch ms") }),
      errors: SESSION_ERRORS,
    },
    ({ c }) => c.json(wsTickets.issue(c.get("session").userId, c.get("session").tokenHash)),
  );

  return app;
}
