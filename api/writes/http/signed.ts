import { createHash } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { ApiError, type AuthFailureGuard, invalidParam } from "../../../lib/http/index.ts";
import { signingHeadersProblem } from "../../../lib/exchange-internal-client.ts";
import type { Caller, ExchangeClient, SignedRequest } from "../exchange-client.ts";
import { span, traceRequest } from "../../../lib/stage-trace.ts";

/** What a verified request carries to its handler. */
export interface SignedVariables {
  caller: Caller;
  /** The exact bytes the signature covered (the route kit parses these, not a second read). */
  rawBody: string;
}

export interface SignedOptions {
  /** The exchange; throws 503 while the writes cannot serve (starting, or not configured). */
  readonly exchange: () => ExchangeClient;
  /** Counts failed authentications per client; 429 past its limit. */
  readonly guard: AuthFailureGuard;
  /** The URL the client signed (signedUrlOf). */
  readonly urlOf: (c: Context) => string;
}

/**
 * Verifies a signed request through the exchange, once (a verified timestamped signature is used
 * up there), and puts the caller in the context. Every header the writes read is judged here
 * first, with no call out: a missing or malformed signing header is 401, a malformed
 * Idempotency-Key 400. Every 401 counts against the client's failed authentications.
 *
 * API-Timestamp is required (SPEC.md leaves it optional, and the exchange's own routes accept a
 * request without it): an untimestamped signature verifies forever, so a captured write could be
 * replayed into a new transaction in its signer's name. With it, the exchange accepts the
 * signature once, within its window (SIGNATURE_WINDOW_MS back, SIGNATURE_MAX_FUTURE_MS ahead).
 */
export function signedByExchange(options: SignedOptions): MiddlewareHandler<{ Variables: SignedVariables }> {
  return options.guard.wrap((c, next) =>
    traceRequest(c.req.path, async () => {
      // While the writes cannot serve, say so (503) before judging the request: a client never
      // gets a 401 for a request that could not have been served anyway.
      const exchange = options.exchange();
      const headers = signingHeadersOf(c);
      idempotencyKeyOf(c);
      const url = signedUrl(options, c);
      const body = await c.req.text();
      c.set("rawBody", body);
      const caller = await span("verify", () => exchange.verify({ method: c.req.method, url, body, headers }));
      c.set("caller", caller);
      await next();
    }),
  ) as MiddlewareHandler<{ Variables: SignedVariables }>;
}

/** The URL the client signed; 400 when a proxy's X-Forwarded-* headers make none. */
function signedUrl(options: SignedOptions, c: Context): string {
  try {
    return options.urlOf(c);
  } catch {
    throw invalidParam("X-Forwarded-Host", "does not make a valid URL with the request's path");
  }
}

/** The three signing headers, all present and well formed; 401 UNAUTHORIZED otherwise. */
function signingHeadersOf(c: Context): Required<SignedRequest["headers"]> {
  const headers = {
    "API-PublicKey": c.req.header("API-PublicKey") ?? "",
    "API-Signature": c.req.header("API-Signature") ?? "",
    "API-Timestamp": c.req.header("API-Timestamp") ?? "",
  };
  if (headers["API-PublicKey"] === "" || headers["API-Signature"] === "")
    throw new ApiError(
      401,
      "UNAUTHORIZED",
      "a signed write needs the API-PublicKey, API-Signature and API-Timestamp headers",
    );
  if (headers["API-Timestamp"] === "")
    throw new ApiError(
      401,
      "UNAUTHORIZED",
      "a signed write needs the API-Timestamp header (epoch milliseconds, appended to the signature text): it makes the signature single-use",
    );
  const problem = signingHeadersProblem(headers);
  if (problem !== undefined) throw new ApiError(401, "UNAUTHORIZED", problem);
  return headers;
}

/** An Idempotency-Key is 1 to 200 visible ASCII characters (no spaces): bounded, and safe to log. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

/** The Idempotency-Key header, validated; undefined when not sent. */
export function idempotencyKeyOf(c: Context): string | undefined {
  const key = c.req.header("Idempotency-Key");
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(key)) throw invalidParam("Idempotency-Key", "must be 1 to 200 visible ASCII characters");
  return key;
}

/** One key, one request: the method, the path and the exact body. */
export function requestHashOf(c: Context, rawBody: string): string {
  return createHash("sha256")
    .update(`${c.req.method} ${new URL(c.req.url).pathname}\n${rawBody}`)
    .digest("hex");
}
