import type { Context, MiddlewareHandler } from "hono";
import { ApiError, rateLimited } from "./errors.ts";

// Failed authentications per client, checked BEFORE credentials are: a client flooding bad
// signatures, tokens or secrets is answered 429 at the cost of a map lookup, without reaching
// the key store or the HMAC, while every other client is unaffected. Per-key rate limits cannot
// do this: a bad signature proves no key.

export interface AuthFailureGuardOptions {
  /** Failed authentications allowed per window and client; the next request is refused until the window ends. */
  readonly limit: number;
  readonly windowMs?: number;
  /** The client, usually clientIp(c, ...); IPv6 addresses are grouped by /64 (one subscriber). */
  readonly keyOf: (c: Context) => string;
  /** Clients tracked at once (default 100 000, a few MB); see overflow below. */
  readonly maxClients?: number;
  readonly now?: () => number;
}

export interface AuthFailureGuard {
  /** Throws 429 RATE_LIMITED (with Retry-After) when the client is over its failures. */
  check(c: Context): void;
  /** Counts one failed authentication of the client. */
  fail(c: Context): void;
  /**
   * An authenticating middleware behind check(): each 401 it throws before letting the request
   * through counts as a failure. What happens after it (the handler) is never counted.
   */
  wrap(authenticate: MiddlewareHandler): MiddlewareHandler;
  size(): number;
}

/**
 * Clients past maxClients (an attack from more /64s than that within a window) share one
 * overflow window: failures stay limited whatever the number of addresses, at the price of
 * untracked clients sharing a budget until windows expire.
 */
const OVERFLOW = "\u0000overflow";

export function createAuthFailureGuard(options: AuthFailureGuardOptions): AuthFailureGuard {
  const { limit, windowMs = 60_000, maxClients = 100_000, now = Date.now } = options;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error("limit must be a positive integer");
  const windows = new Map<string, { count: number; resetAt: number }>();
  let nextSweep = now() + windowMs;

  const sweep = (t: number, force: boolean) => {
    if (!force && t < nextSweep) return;
    for (const [key, window] of windows) if (window.resetAt <= t) windows.delete(key);
    nextSweep = t + windowMs;
  };
  /** The window that counts for `key`: its own, or the overflow one when the table is full. */
  const slot = (key: string, t: number): string => {
    if (windows.has(key)) return key;
    if (windows.size < maxClients) return key;
    sweep(t, true);
    return windows.size < maxClients ? key : OVERFLOW;
  };
  const keyOf = (c: Context) => subscriberOf(options.keyOf(c));

  const guard: AuthFailureGuard = {
    check(c) {
      const t = now();
      sweep(t, false);
      const window = windows.get(slot(keyOf(c), t));
      if (window !== undefined && window.resetAt > t && window.count >= limit) {
        throw rateLimited(Math.max(1, Math.ceil((window.resetAt - t) / 1000)));
      }
    },
    fail(c) {
      const t = now();
      const key = slot(keyOf(c), t);
      const window = windows.get(key);
      if (window === undefined || window.resetAt <= t) windows.set(key, { count: 1, resetAt: t + windowMs });
      else window.count++;
    },
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
          if (!through && error instanceof ApiError && error.status === 401) guard.fail(c);
          throw error;
        }
      };
    },
    size: () => windows.size,
  };
  return guard;
}

/** IPv4 as is; IPv6 by its /64 prefix, since one subscriber usually holds a whole /64. */
export function subscriberOf(address: string): string {
  if (!address.includes(":")) return address;
  const [head = "", tail] = address.toLowerCase().split("::", 2);
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}
