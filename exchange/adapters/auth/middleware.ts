import type { Context, MiddlewareHandler } from "hono";
import { ApiError, rateLimited } from "../../../lib/http/index.ts";
import type { ReplayGuard } from "./replay.ts";
import { PUBLIC_KEY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, methodCarriesBody } from "./signing.ts";
import { DEFAULT_MAX_FUTURE_MS, DEFAULT_TIMESTAMP_WINDOW_MS, verifySignedRequest, type KeyResolver } from "./verify.ts";

export interface SignedAuth {
  readonly userId: string;
  readonly publicKey: string;
}

/** Context variables set by signedRequest: `new Hono<{ Variables: SignedVariables }>()`. */
export interface SignedVariables {
  auth: SignedAuth;
  /** The body text the signature covered ("" for GET and DELETE); handlers parse this. */
  rawBody: string;
}

export interface SignedRequestOptions {
  readonly resolveKey: KeyResolver;
  /** Most ms an API-Timestamp may be behind server time; default 30 000. */
  readonly timestampWindowMs?: number | undefined;
  /** Most ms an API-Timestamp may be ahead of server time; default 1 000. */
  readonly timestampMaxFutureMs?: number | undefined;
  /** Refuse requests without API-Timestamp; default false (the spec makes it optional). */
  readonly requireTimestamp?: boolean | undefined;
  /** Epoch ms; default Date.now. */
  readonly now?: (() => number) | undefined;
  /**
   * The URL the client signed. Default c.req.url; a deployment behind a TLS-terminating proxy
   * rebuilds the public URL here (scheme and host as the client saw them).
   */
  readonly requestUrl?: ((c: Context) => string) | undefined;
  /** Accepts each timestamped signature once (one guard shared by every signed route). */
  readonly replay?: ReplayGuard | undefined;
}

/** The answer to a refused signature: 401 UNAUTHORIZED, or 429 when the replay cache is full. */
export function signatureRejection(verdict: {
  readonly reason: string;
  readonly retryAfterSeconds?: number;
}): ApiError {
  if (verdict.retryAfterSeconds !== undefined) return rateLimited(verdict.retryAfterSeconds, verdict.reason);
  return new ApiError(401, "UNAUTHORIZED", verdict.reason);
}

/**
 * Authenticates a signed request or throws 401 UNAUTHORIZED. The body is read once, here, and
 * handed on as `rawBody` so handlers parse exactly the bytes that were verified. Nothing
 * about the request or the key is logged.
 */
export function signedRequest(options: SignedRequestOptions): MiddlewareHandler<{ Variables: SignedVariables }> {
  const windowMs = options.timestampWindowMs ?? DEFAULT_TIMESTAMP_WINDOW_MS;
  if (!Number.isFinite(windowMs) || windowMs < 0) throw new Error("timestampWindowMs must be a non-negative number");
  const maxFutureMs = options.timestampMaxFutureMs ?? DEFAULT_MAX_FUTURE_MS;
  if (!Number.isFinite(maxFutureMs) || maxFutureMs < 0)
    throw new Error("timestampMaxFutureMs must be a non-negative number");
  const now = options.now ?? Date.now;
  const requestUrl = options.requestUrl ?? ((c: Context) => c.req.url);

  return async (c, next) => {
    // GET/DELETE bodies are not signed, so they are not read either: no handler can see them.
    const body = methodCarriesBody(c.req.method) ? await c.req.text() : "";
    const verdict = await verifySignedRequest({
      method: c.req.method,
      url: requestUrl(c),
      body,
      headers: {
        publicKey: c.req.header(PUBLIC_KEY_HEADER),
        signature: c.req.header(SIGNATURE_HEADER),
        timestamp: c.req.header(TIMESTAMP_HEADER),
      },
      resolveKey: options.resolveKey,
      now,
      windowMs,
      maxFutureMs,
      requireTimestamp: options.requireTimestamp ?? false,
      replay: options.replay,
    });
    if (!verdict.ok) throw signatureRejection(verdict);
    c.set("auth", { userId: verdict.userId, publicKey: verdict.publicKey });
    c.set("rawBody", body);
    await next();
  };
}
