import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";

/**
 * CORS for the browser clients of an API (the web app): only the listed origins, never `*`.
 * A request from another origin, or one without an Origin header (curl, servers), gets no CORS
 * header at all, so a browser refuses to hand the answer to the page, and a preflight from it is
 * an ordinary unknown route. A preflight from an allowed origin is answered here (204), before
 * the rate limit: the browser sends it on its own, so it is not the client's request to count.
 *
 * A server in front may have added CORS headers of its own before this runs (Ponder answers
 * every request with `Access-Control-Allow-Origin: *`): they are replaced for an allowed origin
 * and removed for any other.
 */
export interface BrowserCorsOptions {
  /** Exact origins (scheme://host[:port]) whose pages may call the API. */
  readonly origins: readonly string[];
  readonly methods: readonly string[];
  /** Request headers beyond the CORS-safelisted ones that a page may send (signatures, Content-Type: application/json). */
  readonly allowHeaders: readonly string[];
  /** Response headers a page may read beyond the safelisted ones (rate-limit state, request id). */
  readonly exposeHeaders: readonly string[];
  /** Whether those origins' pages may send cookies (a web account's session); never for `*`. */
  readonly credentials?: boolean;
}

/** Response headers both APIs set that a page needs: the rate limit's state and the request id. */
export const EXPOSED_HEADERS = [
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "Retry-After",
  "X-Request-Id",
] as const;

/** The signed-request headers of both APIs (SPEC.md, Authentication), and a JSON body's Content-Type. */
export const SIGNED_REQUEST_HEADERS = ["API-PublicKey", "API-Signature", "API-Timestamp", "Content-Type"] as const;

/** What an answer to another origin must not carry. */
const FOREIGN_HEADERS = [
  "Access-Control-Allow-Origin",
  "Access-Control-Allow-Credentials",
  "Access-Control-Expose-Headers",
] as const;

/** How long (s) a browser may cache a preflight's answer. */
const PREFLIGHT_MAX_AGE = 600;

export function browserCors(options: BrowserCorsOptions): MiddlewareHandler {
  const allowed = new Set(options.origins);
  if (allowed.has("*")) throw new Error("CORS: list the web app's origins; * is not accepted");
  const handler = cors({
    origin: (origin) => (allowed.has(origin) ? origin : null),
    allowMethods: [...options.methods],
    allowHeaders: [...options.allowHeaders],
    exposeHeaders: [...options.exposeHeaders],
    maxAge: PREFLIGHT_MAX_AGE,
    credentials: options.credentials ?? false,
  });
  return async (c, next) => {
    const origin = c.req.header("Origin");
    if (origin === undefined || !allowed.has(origin)) {
      await next();
      for (const header of FOREIGN_HEADERS) c.res.headers.delete(header);
      // Caches must not hand an answer made for one origin to another.
      if (allowed.size > 0) c.header("Vary", "Origin", { append: true });
      return;
    }
    return handler(c, next);
  };
}
