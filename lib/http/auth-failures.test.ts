import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Hono, type MiddlewareHandler } from "hono";
import { createAuthFailureGuard, subscriberOf } from "./auth-failures.ts";
import { ApiError, errorHandler } from "./errors.ts";

/** An app whose auth accepts the header "x-ok: yes" and whose handler can fail with 401 itself. */
function app(options: { limit: number; maxClients?: number; now: () => number }) {
  let authCalls = 0;
  const authenticate: MiddlewareHandler = async (c, next) => {
    authCalls++;
    if (c.req.header("x-ok") !== "yes") throw new ApiError(401, "UNAUTHORIZED", "bad credentials");
    await next();
  };
  const guard = createAuthFailureGuard({ ...options, keyOf: (c) => c.req.header("x-ip") ?? "unknown" });
  const hono = new Hono();
  hono.use("/*", guard.wrap(authenticate));
  hono.get("/handler-401", () => {
    throw new ApiError(401, "UNAUTHORIZED", "a verdict about something else");
  });
  hono.get("/*", (c) => c.json({ ok: true }));
  hono.onError(errorHandler());
  const send = (ip: string, ok = false, path = "/") => hono.request(path, { headers: { "x-ip": ip, ...(ok ? { "x-ok": "yes" } : {}) } });
  return { guard, send, authCalls: () => authCalls };
}

describe("createAuthFailureGuard", () => {
  it("answers 429 with Retry-After once a client's failures reach the limit, before its credentials are checked", async () => {
    let now = 1_000_000;
    const { send, authCalls } = app({ limit: 3, now: () => now });
    for (let i = 0; i < 3; i++) assert.equal((await send("1.1.1.1")).status, 401);
    const limited = await send("1.1.1.1", true);
    assert.equal(limited.status, 429, "even good credentials wait out the window");
    assert.equal(limited.headers.get("retry-after"), "60");
    assert.deepEqual(await limited.json(), { code: "RATE_LIMITED", message: "Too many requests; retry in 60 s" });
    assert.equal(authCalls(), 3, "the 4th request never reached the credential check");
    assert.equal((await send("2.2.2.2", true)).status, 200, "other clients are unaffected");
    now += 60_000;
    assert.equal((await send("1.1.1.1", true)).status, 200, "the window ends");
  });

  it("counts only the authenticator's own 401s, not what the handler answers after it", async () => {
    const { send } = app({ limit: 1, now: () => 0 });
    for (let i = 0; i < 5; i++) assert.equal((await send("3.3.3.3", true, "/handler-401")).status, 401);
    assert.equal((await send("3.3.3.3", true)).status, 200);
  });

  it("stays bounded: past maxClients, new clients share one overflow window", async () => {
    const { guard, send } = app({ limit: 2, maxClients: 100, now: () => 0 });
    for (let i = 0; i < 150; i++) await send(`10.0.${i >> 8}.${i & 255}`);
    assert.ok(guard.size() <= 101, `size ${guard.size()}`);
    assert.equal((await send("10.9.9.9")).status, 429, "the overflow window is spent too");
    assert.equal((await send("10.0.0.1", true)).status, 200, "a tracked client under its limit is still served");
  });
});

describe("subscriberOf", () => {
  it("keeps IPv4 and groups IPv6 by /64", () => {
    assert.equal(subscriberOf("203.0.113.7"), "203.0.113.7");
    assert.equal(subscriberOf("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
    assert.equal(subscriberOf("2001:DB8:1:2:bbbb:cccc:dddd:eeee"), "2001:db8:1:2::/64");
    assert.equal(subscriberOf("2001:db8::1"), "2001:db8:0:0::/64");
    assert.equal(subscriberOf("::1"), "0:0:0:0::/64");
  });
});
