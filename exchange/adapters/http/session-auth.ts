import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { ApiError } from "../../../lib/http/index.ts";
import type { Exchange } from "../../application/index.ts";
import type { SignedVariables } from "../auth/index.ts";
import { CSRF_HEADER, csrfTokenOf, SESSION_COOKIE } from "./account.ts";

// The "signed-or-session" access of the trading and wallet routes: a request that carries no
// API-PublicKey but the web account's session cookie is its user's, as a signed one is its key's.
// The web app then trades and withdraws without ever holding a private key. Writes need the
// session's CSRF token and the web app's Origin, exactly as the web account's own routes do
// (account.ts); a signed request never reaches this path, so signing behaves as it always did.

export interface SessionAuthOptions {
  readonly exchange: Exchange;
  /** The web app's origins (WEB_ORIGIN): the only Origin a session write may carry. */
  readonly origins: readonly string[];
}

/** The `auth.publicKey` of a session call: no key signed it (so no key's last use is noted). */
export const SESSION_CALLER = "";

/** Whether a request asks to be taken as a web session's (no signature header, a session cookie). */
export const wantsSession = (c: Parameters<MiddlewareHandler>[0]) =>
  c.req.header("API-PublicKey") === undefined && getCookie(c, SESSION_COOKIE) !== undefined;

/**
 * Authenticates the request by its session or throws: 401 without a live session (a dead cookie
 * is no failed authentication: see account.ts), 403 for a write without the session's CSRF token
 * or from a foreign Origin. Sets `auth` as the signed path does, so handlers cannot tell.
 */
export function sessionAuth(options: SessionAuthOptions): MiddlewareHandler<{ Variables: SignedVariables }> {
  const allowedOrigins = new Set(options.origins);
  return async (c, next) => {
    c.header("Cache-Control", "private, no-store");
    const token = getCookie(c, SESSION_COOKIE);
    const row = token === undefined ? undefined : options.exchange.webSessions.resolve(token);
    if (token === undefined || row === undefined)
      throw new ApiError(401, "UNAUTHORIZED", "Sign the request or sign in first: no live web session");
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      const origin = c.req.header("Origin");
      if (origin !== undefined && !allowedOrigins.has(origin))
        throw new ApiError(403, "FORBIDDEN", "web account writes come from the web app's origin only");
      if (c.req.header(CSRF_HEADER) !== csrfTokenOf(token))
        throw new ApiError(403, "FORBIDDEN", `${CSRF_HEADER} is missing or not this session's`);
    }
    c.set("auth", { userId: row.userId, publicKey: SESSION_CALLER });
    await next();
  };
}
