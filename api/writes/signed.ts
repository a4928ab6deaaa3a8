import { createHash } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { ApiError, type AuthFailureGuard, invalidParam } from "../../lib/http/index.ts";
import type { Caller, ExchangeClient } from "./exchange-client.ts";
import { span, traceRequest } from "../../lib/stage-trace.ts";

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
 * up there), and puts the caller in the context. A missing header is refused here without a
 * round trip; every 401 counts against the client's failed authentications.
 */
export function signedByExchange(options: SignedOptions): MiddlewareHandler<{ Variables: SignedVariables }> {
  return options.guard.wrap((c, next) =>
    traceRequest(c.req.path, async () => {
      // While the writes cannot serve, say so (503) before judging the request: a client never
      // gets a 401 for a request that could not have been served anyway.
      const exchange = options.exchange();
      const publicKey = c.req.header("API-PublicKey");
      const signature = c.req.header("API-Signature");
      if (!publicKey || !signature)
        throw new ApiError(401, "UNAUTHORIZED", "a signed request needs the API-PublicKey and API-Signature headers");
      const body = await c.req.text();
      c.set("rawBody", body);
      const timestamp = c.req.header("API-Timestamp");
      const caller = await span("verify", () =>
        exchange.verify({
          method: c.req.method,
          url: options.urlOf(c),
          body,
          headers: {
            "API-PublicKey": publicKey,
            "API-Signature": signature,
            ...(timestamp === undefined ? {} : { "API-Timestamp": timestamp }),
          },
        }),
      );
      c.set("caller", caller);
      await next();
    }),
  ) as MiddlewareHandler<{ Variables: SignedVariables }>;
}

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
