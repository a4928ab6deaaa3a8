import type { Context, MiddlewareHandler } from "hono";
import { rateLimited } from "./errors.ts";

export interface RateLimiterOptions {
  /** Requests allowed per window and key. */
  limit: number;
  windowMs?: number;
  /** Milliseconds clock, injectable for tests. */
  now?: () => number;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets (at least 1): RateLimit-Reset and Retry-After. */
  resetSeconds: number;
}

export interface RateLimiter {
  hit(key: string): RateLimitDecision;
  /** Keys currently tracked (for tests and metrics). */
  size(): number;
}

/**
 * A fixed window per key, opened by the key's first request: simple to reason about and to
 * report (remaining and reset are exact). Rejected requests do not count. Expired windows are
 * swept at most once per window, so memory follows the clients of the last minute.
 */
export function createRateLimiter({ limit, windowMs = 60_000, now = Date.now }: RateLimiterOptions): RateLimiter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  let nextSweep = now() + windowMs;

  const sweep = (t: number) => {
    if (t < nextSweep) return;
    for (const [key, window] of windows) if (window.resetAt <= t) windows.delete(key);
    nextSweep = t + windowMs;
  };

  return {
    hit(key) {
      const t = now();
      sweep(t);
      let window = windows.get(key);
      if (!window || window.resetAt <= t) {
        window = { count: 0, resetAt: t + windowMs };
        windows.set(key, window);
      }
      const allowed = window.count < limit;
      if (allowed) window.count++;
      return {
        allowed,
        limit,
        remaining: limit - window.count,
        resetSeconds: Math.max(1, Math.ceil((window.resetAt - t) / 1000)),
      };
    },
    size: () => windows.size,
  };
}

export interface RateLimitMiddlewareOptions {
  limiter: RateLimiter;
  /** The client key, usually clientIp(c, ...) (an IPv6 /64 is one client: ipKey). */
  keyOf: (c: Context) => string;
}

/** RateLimit-* headers on every answer; 429 RATE_LIMITED with Retry-After past the quota. */
export function rateLimit({ limiter, keyOf }: RateLimitMiddlewareOptions): MiddlewareHandler {
  return async (c, next) => {
    const decision = limiter.hit(keyOf(c));
    c.header("RateLimit-Limit", String(decision.limit));
    c.header("RateLimit-Remaining", String(decision.remaining));
    c.header("RateLimit-Reset", String(decision.resetSeconds));
    if (!decision.allowed) throw rateLimited(decision.resetSeconds);
    await next();
  };
}
