import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { createAuthFailureGuard } from "./auth-failures.ts";
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
  const send = (ip: string, ok = false, path = "/") =>
    hono.request(path, { headers: { "x-ip": ip, ...(ok ? { "x-ok": "yes" } : {}) } });
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

  it("stays bounded: past maxClients, failures of untracked clients share one overflow budget", async () => {
    const { guard, send } = app({ limit: 2, maxClients: 100, now: () => 0 });
    for (let i = 0; i < 150; i++) await send(`10.0.${i >> 8}.${i & 255}`);
    assert.equal(guard.size(), 100);
    assert.equal((await send("10.9.9.9")).status, 429, "a failure once the overflow budget is spent is answered 429");
    assert.equal((await send("10.0.0.1", true)).status, 200, "a tracked client under its limit is still served");
  });

  it("never refuses a client with no failures, however many addresses failed before it", async () => {
    // ~100k IPv6 /64s failing within a minute used to spend the shared budget and lock out
    // every new client, good credentials or not.
    const { guard, send } = app({ limit: 2, maxClients: 100, now: () => 0 });
    for (let i = 0; i < 300; i++) for (let k = 0; k < 3; k++) await send(`2001:db8:${i.toString(16)}::1`);
    assert.equal(guard.size(), 100);
    for (let i = 0; i < 20; i++)
      assert.equal((await send(`2001:db8:ffff:${i.toString(16)}::1`, true)).status, 200, `new honest client ${i}`);
    assert.equal((await send("2001:db8:0::1", true)).status, 429, "a tracked attacker stays refused for its window");
  });

  it("keeps windows in expiry order: a restarted window moves to the end, expired ones leave from the front", async () => {
    let now = 0;
    const { guard, send } = app({ limit: 5, now: () => now });
    await send("1.0.0.1"); // window until 60 s
    now = 10_000;
    await send("1.0.0.2"); // window until 70 s
    now = 61_000;
    await send("1.0.0.1"); // restarts: until 121 s, now behind 1.0.0.2
    now = 71_000;
    await send("1.0.0.3");
    assert.equal(guard.size(), 2, "1.0.0.2 expired even though 1.0.0.1 was inserted before it");
    for (let i = 0; i < 4; i++) await send("1.0.0.1");
    assert.equal((await send("1.0.0.1", true)).status, 429, "the restarted window counts 5 failures");
  });

  it("costs O(1) per unknown client when the table is full (no full sweep per request)", () => {
    const clients = 30_000;
    let ip = "";
    const guard = createAuthFailureGuard({ limit: 1, maxClients: clients, now: () => 0, keyOf: () => ip });
    const c = {} as Context;
    for (let i = 0; i < clients; i++) {
      ip = `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`;
      guard.fail(c);
    }
    const started = performance.now();
    for (let i = 0; i < clients; i++) {
      ip = `11.${i >> 16}.${(i >> 8) & 255}.${i & 255}`;
      guard.check(c);
    }
    const ms = performance.now() - started;
    // A full scan per check is 30,000 x 30,000 entry visits: seconds. A map lookup each: milliseconds.
    assert.ok(ms < 1_000, `${clients} checks took ${ms.toFixed(0)} ms`);
  });
});

describe("a client named directly (a WebSocket LOGIN)", () => {
  it("shares its window with the same client's requests, both ways, grouped by /64", async () => {
    const now = 1_000_000;
    const { guard, send } = app({ limit: 3, now: () => now });
    guard.checkClient("2001:db8::1");
    assert.equal(guard.failClient("2001:db8::1"), undefined);
    assert.equal((await send("2001:db8::2")).status, 401); // a request from the same /64: its second failure
    assert.equal(guard.failClient("2001:db8:0:0:ffff::9"), undefined); // the third
    assert.throws(
      () => guard.checkClient("2001:db8::1"),
      (error: unknown) => error instanceof ApiError && error.status === 429,
    );
    assert.equal((await send("2001:db8::3", true)).status, 429, "refused before its credentials are checked");
    guard.checkClient("2001:db8:1::1"); // another /64 is not affected
  });

  it("without keyOf, serves clients named directly and refuses a request as a bug", () => {
    const guard = createAuthFailureGuard({ limit: 1, now: () => 0 });
    assert.equal(guard.failClient("10.0.0.1"), undefined);
    assert.throws(
      () => guard.checkClient("10.0.0.1"),
      (error: unknown) => error instanceof ApiError && error.status === 429,
    );
    assert.throws(() => guard.check({} as Context), /no keyOf/);
  });
});
