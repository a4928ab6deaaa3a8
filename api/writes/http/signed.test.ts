import assert from "node:assert/strict";
import fc from "fast-check";
import { type Context, Hono } from "hono";
import { describe, it } from "vitest";
import { ApiError, createAuthFailureGuard, errorHandler } from "../../../lib/http/index.ts";
import type { Caller, ExchangeClient, SignedRequest } from "../exchange-client.ts";
import { idempotencyKeyOf, requestHashOf, type SignedVariables, signedByExchange } from "./signed.ts";

const CALLER: Caller = { userId: "u-1", level: 30, address: "0x00000000000000000000000000000000000000aa" };
/** Well-formed signatures: the stand-in exchange accepts GOOD and refuses any other. */
const GOOD = "a0".repeat(32);
const WRONG = "b1".repeat(32);
const STAMP = "1700000000000";
/** Signing headers the stand-in exchange refuses (a wrong signature). */
const SIGNED = { "API-PublicKey": "pk-1", "API-Signature": WRONG, "API-Timestamp": STAMP };
/** Signing headers the stand-in exchange accepts. */
const VALID = { ...SIGNED, "API-Signature": GOOD };

/**
 * A tiny app behind signedByExchange with a stand-in exchange that accepts the signature GOOD
 * and answers 401 to any other (or `verify` when given). The handler echoes what it got.
 */
function appWith(
  options: {
    limit?: number;
    verify?: (request: SignedRequest) => Promise<Caller>;
    urlOf?: (c: Context) => string;
  } = {},
) {
  const verified: SignedRequest[] = [];
  const exchange = {
    async verify(request: SignedRequest): Promise<Caller> {
      verified.push(request);
      if (options.verify) return options.verify(request);
      if (request.headers["API-Signature"] !== GOOD)
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
      urlOf: options.urlOf ?? ((c) => `https://public.example${new URL(c.req.url).pathname}`),
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
    const incomplete: Record<string, string>[] = [
      {},
      { "API-PublicKey": "pk-1", "API-Timestamp": STAMP },
      { "API-Signature": GOOD, "API-Timestamp": STAMP },
    ];
    for (const headers of incomplete) {
      const res = await send("/w/spawn", "{}", headers);
      assert.equal(res.status, 401);
      const body = (await res.json()) as { code: string; message: string };
      assert.equal(body.code, "UNAUTHORIZED");
      assert.match(body.message, /API-PublicKey, API-Signature and API-Timestamp/);
    }
    assert.equal(verified.length, 0);
  });

  it("refuses a replayable write (no API-Timestamp: its signature would verify forever) with 401 naming the header", async () => {
    const { send, verified } = appWith();
    for (const timestamp of [undefined, ""]) {
      const headers: Record<string, string> = { "API-PublicKey": "pk-1", "API-Signature": GOOD };
      if (timestamp !== undefined) headers["API-Timestamp"] = timestamp;
      const res = await send("/w/spawn", "{}", headers);
      assert.equal(res.status, 401, "a captured untimestamped write must not be replayable");
      const body = (await res.json()) as { code: string; message: string };
      assert.equal(body.code, "UNAUTHORIZED");
      assert.match(body.message, /needs the API-Timestamp header/);
    }
    assert.equal(verified.length, 0, "refused before the exchange, which would accept it");
  });

  it("lets a verified caller through with the caller and the exact body bytes the signature covered", async () => {
    const { send, verified } = appWith();
    const body = '{ "name" : "Ünïcode ✓",\n  "symbol":"ABC" }  ';
    const res = await send("/w/spawn?x=1", body, VALID);
    assert.equal(res.status, 200);
    const echo = (await res.json()) as Echo;
    assert.deepEqual(echo.caller, CALLER);
    assert.equal(echo.rawBody, body);
    assert.deepEqual(verified, [
      {
        method: "POST",
        url: "https://public.example/w/spawn",
        body,
        headers: { "API-PublicKey": "pk-1", "API-Signature": GOOD, "API-Timestamp": STAMP },
      },
    ]);
  });

  it("refuses each malformed header with its 4xx before any call out: 401 for a signing header, 400 for Idempotency-Key", async () => {
    const { send, verified } = appWith();
    const cases: [Record<string, string>, number, RegExp][] = [
      [{ "API-PublicKey": "k".repeat(201) }, 401, /^Malformed API-PublicKey/],
      [{ "API-PublicKey": "pk 1" }, 401, /^Malformed API-PublicKey/],
      [{ "API-PublicKey": "clé" }, 401, /^Malformed API-PublicKey/],
      [{ "API-Signature": "s".repeat(10_000) }, 401, /^Malformed API-Signature/],
      [{ "API-Signature": GOOD.toUpperCase() }, 401, /^Malformed API-Signature/],
      [{ "API-Signature": GOOD.slice(1) }, 401, /^Malformed API-Signature/],
      [{ "API-Timestamp": "1".repeat(17) }, 401, /^Malformed API-Timestamp/],
      [{ "API-Timestamp": "1e12" }, 401, /^Malformed API-Timestamp/],
      [{ "API-Timestamp": "01700000000000" }, 401, /^Malformed API-Timestamp/],
      [{ "API-Timestamp": "-1" }, 401, /^Malformed API-Timestamp/],
      [{ "Idempotency-Key": "x".repeat(10_000) }, 400, /^Idempotency-Key: /],
      [{ "Idempotency-Key": "a b" }, 400, /^Idempotency-Key: /],
    ];
    for (const [headers, status, message] of cases) {
      const res = await send("/w/spawn", "{}", { ...VALID, ...headers });
      const body = (await res.json()) as { code: string; message: string };
      assert.equal(res.status, status, JSON.stringify(headers).slice(0, 80));
      assert.equal(body.code, status === 401 ? "UNAUTHORIZED" : "INVALID_PARAM");
      assert.match(body.message, message);
    }
    assert.equal(verified.length, 0, "nothing malformed reached the exchange");
  });

  it("refuses forwarded headers that make no URL to verify with 400, not 500", async () => {
    const { send, verified } = appWith({
      urlOf: (c) => new URL("/w/spawn", `https://${c.req.header("x-forwarded-host")}`).href,
    });
    const res = await send("/w/spawn", "{}", { ...VALID, "X-Forwarded-Host": "a b" });
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { message: string }).message, /^X-Forwarded-Host: /);
    assert.equal(verified.length, 0);
  });

  it("answers every header value with a 2xx or 4xx, never a 5xx, and calls out only for well-formed ones (fuzz, seed pinned)", async () => {
    const seed = 20261127;
    console.log(`# signed-write header fuzz seed ${seed}`);
    const { send, verified } = appWith({ limit: 1_000_000 });
    // What an HTTP header value can carry: Headers refuses NUL, CR and LF, and trims the ends.
    const unit = fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }),
      fc.integer({ min: 0x09, max: 0x09 }),
      fc.integer({ min: 0x80, max: 0xff }),
      fc.constantFrom(0x30, 0x61, 0x66),
    );
    const value = fc.oneof(
      fc.array(unit, { maxLength: 300 }).map((codes) => String.fromCharCode(...codes)),
      fc.constantFrom(GOOD, WRONG, STAMP, "pk-1", "", "0", "x".repeat(10_000)),
    );
    const names = ["API-PublicKey", "API-Signature", "API-Timestamp", "Idempotency-Key"] as const;
    const wellFormed = (headers: Record<string, string>) =>
      /^[\x21-\x7e]{1,200}$/.test(headers["API-PublicKey"] ?? "") &&
      /^[0-9a-f]{64}$/.test(headers["API-Signature"] ?? "") &&
      /^(0|[1-9][0-9]{0,15})$/.test(headers["API-Timestamp"] ?? "") &&
      (headers["Idempotency-Key"] === undefined || /^[\x21-\x7e]{1,200}$/.test(headers["Idempotency-Key"]));
    await fc.assert(
      fc.asyncProperty(
        fc.record(Object.fromEntries(names.map((name) => [name, fc.option(value, { nil: undefined })])), {
          requiredKeys: [],
        }),
        async (drawn) => {
          const headers = Object.fromEntries(
            Object.entries({ ...VALID, ...drawn })
              .filter((entry): entry is [string, string] => entry[1] !== undefined)
              .map(([name, v]) => [name, v.trim()]),
          );
          const before = verified.length;
          const res = await send("/w/spawn", "{}", headers);
          assert.ok(res.status < 500, `${res.status} for ${JSON.stringify(headers).slice(0, 200)}`);
          if (!wellFormed(headers)) {
            assert.ok(res.status === 400 || res.status === 401, `${res.status}`);
            assert.equal(verified.length, before, "a malformed header never reaches the exchange");
          }
        },
      ),
      { seed, numRuns: 300 },
    );
  });

  it("counts failed verifications: past the limit the client gets 429 with Retry-After, unverified", async () => {
    const { send, verified } = appWith({ limit: 3 });
    for (let i = 0; i < 3; i++) {
      const res = await send("/w/spawn", "{}", SIGNED);
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), { code: "UNAUTHORIZED", message: "signature does not match" });
    }
    const limited = await send("/w/spawn", "{}", VALID);
    assert.equal(limited.status, 429, "even a good signature waits out the window");
    assert.equal(((await limited.json()) as { code: string }).code, "RATE_LIMITED");
    assert.equal(limited.headers.get("retry-after"), "60");
    assert.equal(verified.length, 3, "the 4th request never reached the exchange");
    const other = await send("/w/spawn", "{}", { ...VALID, "x-ip": "5.6.7.8" });
    assert.equal(other.status, 200, "another client is unaffected");
  });

  it("counts requests missing their headers as failures too", async () => {
    const { send } = appWith({ limit: 2 });
    assert.equal((await send("/w/spawn", "{}")).status, 401);
    assert.equal((await send("/w/spawn", "{}")).status, 401);
    assert.equal((await send("/w/spawn", "{}", VALID)).status, 429);
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
  const withKey = (key: string) => send("/w/spawn", "{}", { ...VALID, "Idempotency-Key": key });

  it("is undefined without the header", async () => {
    const res = await send("/w/spawn", "{}", VALID);
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
    const res = await send(path, body, { ...VALID, ...headers });
    assert.equal(res.status, 200);
    return ((await res.json()) as Echo).requestHash;
  };

  it("is equal for the same path and body, whatever the signature headers (a re-signed retry)", async () => {
    const a = await hashOf("/w/spawn", '{"symbol":"ABC"}', { "API-Timestamp": "1700000000001" });
    const b = await hashOf("/w/spawn", '{"symbol":"ABC"}', {
      "API-Timestamp": "1700000000002",
      "API-PublicKey": "pk-2",
    });
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
