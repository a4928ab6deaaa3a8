import type { Context, MiddlewareHandler } from "hono";
import { ipKey } from "./client-ip.ts";
import { ApiError, rateLimited } from "./errors.ts";

// Failed authentications per client, checked BEFORE credentials are: a client flooding bad
// signatures, tokens or secrets is answered 429 at the cost of a map lookup, without reaching
// the key store or the HMAC, while every other client is unaffected. Per-key rate limits cannot
// do this: a bad signature proves no key.

export interface AuthFailureGuardOptions {
  /** Failed authentications allowed per window and client; the next request is refused until the window ends. */
  readonly limit: number;
  readonly windowMs?: number;
  /**
   * The client of a request, usually clientIp(c, ...). Clients are keyed by ipKey (IPv6 by its
   * /64, as every per-IP limit). Without it only checkClient and failClient serve (a WebSocket gateway).
   */
  readonly keyOf?: (c: Context) => string;
  /** Clients tracked at once (default 100 000, a few MB); see overflow below. */
  readonly maxClients?: number;
  readonly now?: () => number;
}

export interface AuthFailureGuard {
  /** Throws 429 RATE_LIMITED (with Retry-After) when the client is over its failures. */
  check(c: Context): void;
  /**
   * Counts one failed authentication of the client. Returns a 429 to answer instead of the
   * failure when the client could not be tracked and the shared overflow budget is spent.
   */
  fail(c: Context): ApiError | undefined;
  /**
   * An authenticating middleware behind check(): each 401 it throws before letting the request
   * through counts as a failure. What happens after it (the handler) is never counted.
   */
  wrap(authenticate: MiddlewareHandler): MiddlewareHandler;
  /** check() for a client named directly (an IP), where there is no request context: a WebSocket LOGIN. */
  checkClient(client: string): void;
  /** fail() for a client named directly. */
  failClient(client: string): ApiError | undefined;
  size(): number;
}

interface Window {
  count: number;
  resetAt: number;
}

/**
 * Only clients that failed are tracked, at most maxClients of them, in a Map kept in expiry
 * order (a window that restarts is deleted and inserted again at the end), so expired windows
 * are swept from the front at O(expired) per call, never a full scan.
 *
 * A client with no failures is never refused. Past maxClients failing clients within a window
 * (an attack from more /64s than that), further ones are not tracked until windows expire: their
 * failures share one overflow budget, and once it is spent each of them is answered 429 instead
 * of 401. That cannot refuse anyone before the credential check, since an untracked client may
 * be an honest one: a shared budget that did (as before) let ~100,000 addresses lock out every
 * new client.
 */
export function createAuthFailureGuard(options: AuthFailureGuardOptions): AuthFailureGuard {
  const { limit, windowMs = 60_000, maxClients = 100_000, now = Date.now } = options;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error("limit must be a positive integer");
  const windows = new Map<string, Window>();
  const overflow: Window = { count: 0, resetAt: 0 };

  const sweep = (t: number) => {
    for (const [key, window] of windows) {
      if (window.resetAt > t) return;
      windows.delete(key);
    }
  };
  const retryAfter = (window: Window, t: number) => rateLimited(Math.max(1, Math.ceil((window.resetAt - t) / 1000)));
  const checkKey = (key: string) => {
    // The common case: nobody failed lately, so there is no client to look up.
    if (windows.size === 0) return;
    const t = now();
    sweep(t);
    const window = windows.get(key);
    if (window !== undefined && window.resetAt > t && window.count >= limit) throw retryAfter(window, t);
  };
  const failKey = (key: string): ApiError | undefined => {
    const t = now();
    sweep(t);
    const window = windows.get(key);
    if (window !== undefined && window.resetAt > t) {
      window.count++;
      return undefined;
    }
    // A new or restarted window goes to the end, keeping the map in expiry order.
    if (window !== undefined) windows.delete(key);
    if (windows.size < maxClients) {
      windows.set(key, { count: 1, resetAt: t + windowMs });
      return undefined;
    }
    if (overflow.resetAt <= t) Object.assign(overflow, { count: 0, resetAt: t + windowMs });
    return ++overflow.count > limit ? retryAfter(overflow, t) : undefined;
  };

  const requestKey = (c: Context) => {
    if (options.keyOf === undefined) throw new Error("this guard has no keyOf: use checkClient and failClient");
    return ipKey(options.keyOf(c));
  };
  const guard: AuthFailureGuard = {
    check: (c) => checkKey(requestKey(c)),
    fail: (c) => failKey(requestKey(c)),
    checkClient: (client) => checkKey(ipKey(client)),
    failClient: (client) => failKey(ipKey(client)),
    wrap(authenticate) {
      return async (c, next) => {
        guard.check(c);
        let through = false;
        try {
          await authenticate(c, async () => {
            through = true;
            await next();
          });
        } catch (error) {
          if (!through && error instanceof ApiError && error.status === 401) throw guard.fail(c) ?? error;
          throw error;
        }
      };
    },
    size: () => windows.size,
  };
  return guard;
}
