import assert from "node:assert/strict";
import fc from "fast-check";
import { Hono } from "hono";
import { describe, it } from "vitest";
import { ApiError, createAuthFailureGuard, errorHandler } from "../../lib/http/index.ts";
import type { Caller, ExchangeClient, SignedRequest } from "./exchange-client.ts";
import { idempotencyKeyOf, requestHashOf, type SignedVariables, signedByExchange } from "./signed.ts";

const CALLER: Caller = { userId: "u-1", level: 30, address: "0x00000000000000000000000000000000000000aa" };
const SIGNED = { "API-PublicKey": "pk-1", "API-Signature": "sig-1" };

/**
 * A tiny app behind signedByExchange with a stand-in exchange that accepts the signature "good"
 * and answers 401 to any other (or `verify` when given). The handler echoes what it got.
 */
function appWith(options: { limit?: number; verify?: (request: SignedRequest) => Promise<Caller> } = {}) {
  const verified: SignedRequest[] = [];
  const exchange = {
    async verify(request: SignedRequest): Promise<Caller> {
      verified.push(request);
      if (options.verify) return options.verify(request);
      if (request.headers["API-Signature"] !== "good")
        throw new ApiError(401, "UNAUTHORIZED", "signature does not match");
      return CALLER;
    },
  } as unknown as ExchangeClient;
  const guard = createAuthFailureGuard({
    limit: options.limit ?? 100,
    keyOf: (c) => c.req.header("x-ip") ?? "unknown",
    now: () => 1_000_000,
  });
  const app = new Hono<{ Variables: SignedVariables }>();
  app.use(
    "/w/*",
    signedByExchange({
      exchange: () => exchange,
      guard,
      urlOf: (c) => `https://public.example${new URL(c.req.url).pathname}`,
    }),
  );
  app.post("/w/*", (c) =>
    c.json({
      caller: c.get("caller"),
      rawBody: c.get("rawBody"),
      idempotencyKey: idempotencyKeyOf(c) ?? null,
      requestHash: requestHashOf(c, c.get("rawBody")),
    }),
  );
  app.onError(errorHandler());
  const send = (path: string, body: string, headers: Record<string, string> = {}) =>
    app.request(path, { method: "POST", body, headers: { "x-ip": "1.2.3.4", ...headers } });
  return { send, verified };
}

interface Echo {
  caller: Caller;
  rawBody: string;
  idempotencyKey: string | null;
  requestHash: string;
}

describe("signedByExchange", () => {
  it("refuses a request without API-PublicKey or API-Signature with 401, without asking the exchange", async () => {
    const { send, verified } = appWith();
    const incomplete: Record<string, string>[] = [{}, { "API-PublicKey": "pk-1" }, { "API-Signature": "good" }];
    for (const headers of incomplete) {
      const res = await send("/w/spawn", "{}", headers);
      assert.equal(res.status, 401);
      const body = (await res.json()) as { code: string; message: string };
      assert.equal(body.code, "UNAUTHORIZED");
      assert.match(body.message, /API-PublicKey and API-Signature/);
    }
    assert.equal(verified.length, 0);
  });

  it("lets a verified caller through with the caller and the exact body bytes the signature covered", async () => {
    const { send, verified } = appWith();
    const body = '{ "name" : "Ünïcode ✓",\n  "symbol":"ABC" }  ';
    const res = await send("/w/spawn?x=1", body, {
      ...SIGNED,
      "API-Signature": "good",
      "API-Timestamp": "1700000000000",
    });
    assert.equal(res.status, 200);
    const echo = (await res.json()) as Echo;
    assert.deepEqual(echo.caller, CALLER);
    assert.equal(echo.rawBody, body);
    assert.deepEqual(verified, [
      {
        method: "POST",
        url: "https://public.example/w/spawn",
        body,
        headers: { "API-PublicKey": "pk-1", "API-Signature": "good", "API-Timestamp": "1700000000000" },
      },
    ]);
  });

  it("sends no API-Timestamp to the exchange when the client sent none", async () => {
    const { send, verified } = appWith();
    assert.equal((await send("/w/spawn", "{}", { ...SIGNED, "API-Signature": "good" })).status, 200);
    assert.deepEqual(verified[0].headers, { "API-PublicKey": "pk-1", "API-Signature": "good" });
  });

  it("counts failed verifications: past the limit the client gets 429 with Retry-After, unverified", async () => {
    const { send, verified } = appWith({ limit: 3 });
    for (let i = 0; i < 3; i++) {
      const res = await send("/w/spawn", "{}", SIGNED);
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), { code: "UNAUTHORIZED", message: "signature does not match" });
    }
    const limited = await send("/w/spawn", "{}", { ...SIGNED, "API-Signature": "good" });
    assert.equal(limited.status, 429, "even a good signature waits out the window");
    assert.equal(((await limited.json()) as { code: string }).code, "RATE_LIMITED");
    assert.equal(limited.headers.get("retry-after"), "60");
    assert.equal(verified.length, 3, "the 4th request never reached the exchange");
    const other = await send("/w/spawn", "{}", { ...SIGNED, "API-Signature": "good", "x-ip": "5.6.7.8" });
    assert.equal(other.status, 200, "another client is unaffected");
  });

  it("counts requests missing their headers as failures too", async () => {
    const { send } = appWith({ limit: 2 });
    assert.equal((await send("/w/spawn", "{}")).status, 401);
    assert.equal((await send("/w/spawn", "{}")).status, 401);
    assert.equal((await send("/w/spawn", "{}", { ...SIGNED, "API-Signature": "good" })).status, 429);
  });

  it("does not count an exchange that is away (503) against the client", async () => {
    const { send } = appWith({
      limit: 1,
      verify: () => Promise.reject(new ApiError(503, "UNAVAILABLE", "the exchange is unavailable")),
    });
    for (let i = 0; i < 3; i++) assert.equal((await send("/w/spawn", "{}", SIGNED)).status, 503);
  });
});

describe("idempotencyKeyOf", () => {
  const { send } = appWith();
  const withKey = (key: string) =>
    send("/w/spawn", "{}", { ...SIGNED, "API-Signature": "good", "Idempotency-Key": key });

  it("is undefined without the header", async () => {
    const res = await send("/w/spawn", "{}", { ...SIGNED, "API-Signature": "good" });
    assert.equal(((await res.json()) as Echo).idempotencyKey, null);
  });

  it("accepts 1 to 200 visible ASCII characters as sent", async () => {
    for (const key of ["a", "~".repeat(200), "order-42_retry.1", "!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~"]) {
      const res = await withKey(key);
      assert.equal(res.status, 200, key);
      assert.equal(((await res.json()) as Echo).idempotencyKey, key);
    }
  });

  it("refuses an empty key, spaces, 201 characters, control and non-ASCII characters with 400 naming the header", async () => {
    for (const key of ["", " ", "a b", "x".repeat(201), "a\tb", "a\x7fb", "clé", "ÿ"]) {
      const res = await withKey(key);
      assert.equal(res.status, 400, JSON.stringify(key));
      const body = (await res.json()) as { code: string; message: string };
      assert.equal(body.code, "INVALID_PARAM");
      assert.match(body.message, /^Idempotency-Key: /);
    }
  });

  it("accepts exactly the keys of 1 to 200 characters in 0x21..0x7e (property, seed pinned)", async () => {
    const seed = 20260611;
    console.log(`# idempotency key property seed ${seed}`);
    const visible = fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c));
    // What an HTTP header value can carry in the middle of a key (Headers trims the ends).
    const other = fc.oneof(
      fc.constantFrom(" ", "\t", "\x7f"),
      fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)),
      fc.integer({ min: 0x01, max: 0x08 }).map((c) => String.fromCharCode(c)),
    );
    const valid = fc.string({ unit: visible, minLength: 1, maxLength: 200 });
    const invalid = fc.oneof(
      fc.tuple(valid, other, valid).map(([a, x, b]) => a + x + b),
      fc.string({ unit: visible, minLength: 201, maxLength: 400 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          valid.map((k) => [k, true] as const),
          invalid.map((k) => [k, false] as const),
        ),
        async ([key, ok]) => {
          const res = await withKey(key);
          assert.equal(res.status, ok ? 200 : 400, JSON.stringify(key));
          if (ok) assert.equal(((await res.json()) as Echo).idempotencyKey, key);
        },
      ),
      { seed, numRuns: 200 },
    );
  });
});

describe("requestHashOf", () => {
  const { send } = appWith();
  const hashOf = async (path: string, body: string, headers: Record<string, string> = {}) => {
    const res = await send(path, body, { ...SIGNED, "API-Signature": "good", ...headers });
    assert.equal(res.status, 200);
    return ((await res.json()) as Echo).requestHash;
  };

  it("is equal for the same path and body, whatever the signature headers (a re-signed retry)", async () => {
    const a = await hashOf("/w/spawn", '{"symbol":"ABC"}', { "API-Timestamp": "1" });
    const b = await hashOf("/w/spawn", '{"symbol":"ABC"}', { "API-Timestamp": "2", "API-PublicKey": "pk-2" });
    assert.match(a, /^[0-9a-f]{64}$/);
    assert.equal(a, b);
  });

  it("differs for another body (even by whitespace) or another path", async () => {
    const base = await hashOf("/w/spawn", '{"symbol":"ABC"}');
    assert.notEqual(await hashOf("/w/spawn", '{"symbol":"ABD"}'), base);
    assert.notEqual(await hashOf("/w/spawn", '{"symbol": "ABC"}'), base);
    assert.notEqual(await hashOf("/w/workers/1/vote", '{"symbol":"ABC"}'), base);
    assert.notEqual(
      await hashOf("/w/workers/2/vote", '{"symbol":"ABC"}'),
      await hashOf("/w/workers/1/vote", '{"symbol":"ABC"}'),
    );
  });
});
