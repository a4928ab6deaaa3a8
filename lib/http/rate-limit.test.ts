import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { Hono } from "hono";
import { errorHandler } from "./errors.ts";
import { createRateLimiter, rateLimit } from "./rate-limit.ts";

describe("createRateLimiter", () => {
  it("allows `limit` requests per window and key, then refuses until the window resets", () => {
    let now = 1_000_000;
    const limiter = createRateLimiter({ limit: 3, windowMs: 60_000, now: () => now });
    assert.deepEqual(limiter.hit("a"), { allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
    now += 10_500;
    assert.equal(limiter.hit("a").remaining, 1);
    assert.equal(limiter.hit("a").remaining, 0);
    assert.deepEqual(limiter.hit("a"), { allowed: false, limit: 3, remaining: 0, resetSeconds: 50 });
    assert.equal(limiter.hit("b").allowed, true, "other clients are not affected");
    now += 49_499;
    assert.deepEqual(limiter.hit("a"), { allowed: false, limit: 3, remaining: 0, resetSeconds: 1 });
    now += 1;
    assert.deepEqual(limiter.hit("a"), { allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
  });

  it("does not count refused requests", () => {
    let now = 0;
    const limiter = createRateLimiter({ limit: 1, now: () => now });
    limiter.hit("a");
    for (let i = 0; i < 10; i++) limiter.hit("a");
    now = 60_000;
    assert.equal(limiter.hit("a").allowed, true);
  });

  it("forgets clients whose window has ended", () => {
    let now = 0;
    const limiter = createRateLimiter({ limit: 5, windowMs: 1_000, now: () => now });
    for (let i = 0; i < 100; i++) limiter.hit(`client-${i}`);
    assert.equal(limiter.size(), 100);
    now = 5_000;
    limiter.hit("late");
    assert.equal(limiter.size(), 1);
  });
});

describe("rateLimit middleware", () => {
  const appWith = (limit: number, now: () => number) => {
    const app = new Hono();
    app.use(rateLimit({ limiter: createRateLimiter({ limit, now }), keyOf: (c) => c.req.header("x-client") ?? "?" }));
    app.get("/", (c) => c.json({ ok: true }));
    app.onError(errorHandler());
    return app;
  };

  it("sets RateLimit-* headers and answers 429 RATE_LIMITED with Retry-After past the quota", async () => {
    const app = appWith(2, () => 0);
    const first = await app.request("/", { headers: { "x-client": "a" } });
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("ratelimit-limit"), "2");
    assert.equal(first.headers.get("ratelimit-remaining"), "1");
    assert.equal(first.headers.get("ratelimit-reset"), "60");
    await app.request("/", { headers: { "x-client": "a" } });
    const refused = await app.request("/", { headers: { "x-client": "a" } });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("retry-after"), "60");
    assert.equal(refused.headers.get("ratelimit-remaining"), "0");
    assert.deepEqual(await refused.json(), { code: "RATE_LIMITED", message: "Too many requests; retry in 60 s" });
    assert.equal((await app.request("/", { headers: { "x-client": "b" } })).status, 200);
  });
});
