import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { ApiError } from "../../lib/http/index.ts";
import { ExchangeClient, type SignedRequest } from "./exchange-client.ts";
import { isRejection } from "./outcome.ts";
import { apiErrorOf as answerOfRejection, httpErrorOf } from "./http/statuses.ts";

/** What the client sent, and a scripted answer. */
interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal;
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

function clientWith(answer: (sent: Sent) => Response | Promise<Response>, timeoutMs = 5_000) {
  const sent: Sent[] = [];
  const fakeFetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const request: Sent = {
      url: String(input),
      method: init?.method ?? "GET",
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      body: JSON.parse(String(init?.body)),
      signal: init!.signal!,
    };
    sent.push(request);
    return answer(request);
  }) as typeof fetch;
  const client = new ExchangeClient({
    baseUrl: "http://exchange.test:7001",
    serviceSecret: "s3cret",
    timeoutMs,
    fetch: fakeFetch,
  });
  return { client, sent };
}

const SIG = "5a".repeat(32);
const BAD_SIG = "b".repeat(64);

const request: SignedRequest = {
  method: "POST",
  url: "https://api.example/api/launchpad/spawn",
  body: '{"name":"A"}',
  headers: { "API-PublicKey": "pk", "API-Signature": SIG, "API-Timestamp": "1700000000000" },
};

const hold = { holdId: "w-1", userId: "u-1", currency: "USDC", amount: "2.5", memo: "spawn ABC" };

/**
 * The error answer to what `promise` rejects with, or to the rejection it resolves to (a refused
 * hold), as the writes' HTTP side answers it (statuses.ts).
 */
async function apiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  let answer: unknown;
  try {
    const outcome = await promise;
    if (!isRejection(outcome)) assert.fail("expected a rejection");
    answer = answerOfRejection(outcome);
  } catch (error) {
    answer = httpErrorOf(error);
  }
  assert.ok(answer instanceof ApiError, `expected an error answer, got ${String(answer)}`);
  return answer;
}

/**
 * A client whose exchange answers the batch route `path` ({<items>: [...]}) with one result per
 * item: `answer(item)`, under `field` when its status is below 300, else as the error.
 */
function batchRouteWith(
  path: string,
  items: "requests" | "calls",
  field: "caller" | "hold",
  answer: (item: any) => { status: number; body: unknown },
) {
  return clientWith(({ url, body }) => {
    assert.equal(url, `http://exchange.test:7001${path}`);
    return json(200, {
      results: (body as Record<string, any[]>)[items]!.map((item) => {
        const { status, body: payload } = answer(item);
        return status < 300 ? { status, [field]: payload } : { status, error: payload };
      }),
    });
  });
}

/** A client whose exchange answers each signature check of a batch with `answer(request)`. */
const verifiesWith = (answer: (request: SignedRequest) => { status: number; body: unknown }) =>
  batchRouteWith("/internal/verify-signature/batch", "requests", "caller", answer);

/** A client whose exchange answers each fee-hold call of a batch with `answer(call)`. */
const feeHoldsWith = (answer: (call: any) => { status: number; body: unknown }) =>
  batchRouteWith("/internal/fee-holds/batch", "calls", "hold", answer);

/**
 * A client whose exchange holds its first request until `release()`, so the calls made meanwhile
 * gather; every request's items are answered by `results(items)`.
 */
function holdingFirst(items: "requests" | "calls", results: (items: any[]) => unknown[]) {
  let release: (() => void) | undefined;
  const { client, sent } = clientWith(async ({ body }) => {
    if (sent.length === 1) await new Promise<void>((resolve) => (release = resolve));
    return json(200, { results: results((body as Record<string, any[]>)[items]!) });
  });
  return { client, sent, release: () => release!() };
}

describe("ExchangeClient.verify", () => {
  it("posts the signed request with the service secret and returns the caller, address lower-cased", async () => {
    const { client, sent } = verifiesWith(() => ({
      status: 200,
      body: { userId: "u-1", level: 25, address: "0xAbCdEf0123456789aBcDeF0123456789AbCdEf01" },
    }));
    const caller = await client.verify(request);
    assert.deepEqual(caller, { userId: "u-1", level: 25, address: "0xabcdef0123456789abcdef0123456789abcdef01" });
    assert.equal(sent.length, 1);
    assert.equal(sent[0].method, "POST");
    assert.equal(sent[0].headers["x-service-secret"], "s3cret");
    assert.equal(sent[0].headers["content-type"], "application/json");
    assert.deepEqual(sent[0].body, { requests: [request] }, "the exact signed request, body bytes included");
  });

  it("keeps a caller without a linked address as null", async () => {
    const { client } = verifiesWith(() => ({ status: 200, body: { userId: "u-2", level: 0, address: null } }));
    assert.deepEqual(await client.verify(request), { userId: "u-2", level: 0, address: null });
  });

  it("turns the exchange's 401 into 401 UNAUTHORIZED with the exchange's message", async () => {
    const { client } = verifiesWith(() => ({
      status: 401,
      body: { code: "UNAUTHORIZED", message: "signature does not match" },
    }));
    const error = await apiErrorOf(client.verify(request));
    assert.equal(error.status, 401);
    assert.equal(error.code, "UNAUTHORIZED");
    assert.equal(error.message, "signature does not match");
  });

  it("checks the requests made while one check is out together, each answered on its own, in order", async () => {
    const { client, sent, release } = holdingFirst("requests", (requests: SignedRequest[]) =>
      requests.map((r) =>
        r.headers["API-Signature"] === BAD_SIG
          ? { status: 401, error: { code: "UNAUTHORIZED", message: "bad signature" } }
          : { status: 200, caller: { userId: r.headers["API-PublicKey"], level: 1, address: null } },
      ),
    );
    const signedBy = (publicKey: string, signature = SIG) => ({
      ...request,
      headers: { "API-PublicKey": publicKey, "API-Signature": signature },
    });
    const first = client.verify(signedBy("pk-0"));
    const later = [
      client.verify(signedBy("pk-1")),
      client.verify(signedBy("pk-2", BAD_SIG)),
      client.verify(signedBy("pk-3")),
    ].map((p) =>
      p.then(
        (caller) => caller.userId,
        (error: ApiError) => error.code,
      ),
    );
    assert.equal(sent.length, 1);
    release();
    assert.equal((await first).userId, "pk-0");
    assert.deepEqual(await Promise.all(later), ["pk-1", "UNAUTHORIZED", "pk-3"]);
    assert.equal(sent.length, 2);
    assert.deepEqual(
      (sent[1].body as { requests: SignedRequest[] }).requests.map((r) => r.headers["API-PublicKey"]),
      ["pk-1", "pk-2", "pk-3"],
    );
  });

  it("sends a large request alone rather than past the exchange's body limit", async () => {
    const { client, sent, release } = holdingFirst("requests", (requests) =>
      requests.map(() => ({ status: 200, caller: { userId: "u", level: 1, address: null } })),
    );
    const big = { ...request, body: "x".repeat(16 * 1024) };
    const checks = [
      client.verify(request),
      client.verify(big),
      client.verify(big),
      client.verify(big),
      client.verify(request),
    ];
    release();
    await Promise.all(checks);
    for (const one of sent)
      assert.ok(JSON.stringify(one.body).length < 64 * 1024, "every batch fits the exchange's limit");
    assert.ok(sent.length >= 3, `batches: ${sent.length}`);
  });

  it("counts a batch's bytes as sent: bodies of multi-byte characters or quotes still fit", async () => {
    const { client, sent, release } = holdingFirst("requests", (requests) =>
      requests.map(() => ({ status: 200, caller: { userId: "u", level: 1, address: null } })),
    );
    // 16 KiB of bytes each (the ecosystem API's body limit): 5,461 characters of 3 bytes, or 8,192 quotes that escape to 16 KiB.
    const wide = { ...request, body: "\u4e2d".repeat(5461) };
    const quoted = { ...request, body: '"'.repeat(8192) };
    const checks = [
      client.verify(request),
      client.verify(wide),
      client.verify(wide),
      client.verify(quoted),
      client.verify(wide),
    ];
    release();
    await Promise.all(checks);
    for (const one of sent)
      assert.ok(
        Buffer.byteLength(JSON.stringify(one.body)) < 64 * 1024,
        "every batch fits the exchange's limit in bytes",
      );
  });

  it("answers 503 UNAVAILABLE when the exchange cannot be reached (fetch rejects)", async () => {
    const { client } = clientWith(() => Promise.reject(new TypeError("fetch failed")));
    const error = await apiErrorOf(client.verify(request));
    assert.equal(error.status, 503);
    assert.equal(error.code, "UNAVAILABLE");
    assert.match(error.message, /not reachable/);
  });

  it("answers 503 UNAVAILABLE once timeoutMs passes without an answer, aborting the request", async () => {
    let aborted: AbortSignal | undefined;
    const { client } = clientWith(
      ({ signal }) =>
        new Promise<Response>((_, reject) => {
          assert.equal(signal.aborted, false, "not aborted before the deadline");
          signal.addEventListener("abort", () => {
            aborted = signal;
            reject(signal.reason);
          });
        }),
      20,
    );
    const error = await apiErrorOf(client.verify(request));
    assert.equal(error.status, 503);
    assert.equal(error.code, "UNAVAILABLE");
    assert.match(error.message, /no answer in time/);
    assert.ok(aborted?.aborted, "the request's signal was aborted");
  });

  it("answers 503 when the exchange itself answers 5xx or 429, even without a JSON body", async () => {
    for (const status of [500, 502, 503, 429]) {
      const { client } = clientWith(() => new Response("<html>bad gateway</html>", { status }));
      const error = await apiErrorOf(client.verify(request));
      assert.equal(error.status, 503, `exchange answered ${status}`);
      assert.equal(error.code, "UNAVAILABLE");
      assert.match(error.message, new RegExp(`answered ${status}`));
    }
    const limited = await apiErrorOf(
      verifiesWith(() => ({ status: 429, body: { code: "RATE_LIMITED", message: "" } })).client.verify(request),
    );
    assert.equal(limited.status, 503, "a check the exchange could not make now");
  });

  it("answers 503 UNAVAILABLE (an operator's problem, never the client's 401 nor a 500) when the exchange refuses the call itself", async () => {
    for (const status of [400, 401, 403, 404, 413]) {
      const { client } = clientWith(() => json(status, { code: "FORBIDDEN", message: "wrong service secret" }));
      const error = await apiErrorOf(client.verify(request));
      assert.deepEqual([error.status, error.code], [503, "UNAVAILABLE"], `the call refused with ${status}`);
      assert.equal(error.headers["Retry-After"], "2");
      assert.match(error.message, new RegExp(`${status} FORBIDDEN`));
      assert.doesNotMatch(error.message, /wrong service secret/, "the exchange's message is not passed to the client");
    }
  });

  it("refuses malformed signing headers alone with 401, before any request, so they never fail a batch", async () => {
    // The exchange refuses a whole batch (400) when one request in it breaks its limits: one
    // client's junk header would fail every check sent with it (issue 24, the writes' fuzz).
    let release: (() => void) | undefined;
    const { client, sent } = clientWith(async ({ body }) => {
      if (sent.length === 1) await new Promise<void>((resolve) => (release = resolve));
      const requests = (body as { requests: SignedRequest[] }).requests;
      // The exchange's verifyBody: a key or signature past 200 characters, a timestamp past 20.
      if (
        requests.some(
          (r) =>
            (r.headers["API-PublicKey"]?.length ?? 0) > 200 ||
            (r.headers["API-Signature"]?.length ?? 0) > 200 ||
            (r.headers["API-Timestamp"]?.length ?? 0) > 20,
        )
      )
        return json(400, { code: "INVALID_PARAM", message: "requests.3.headers.API-PublicKey: too long" });
      return json(200, {
        results: requests.map((r) =>
          /^[0-9a-f]{64}$/.test(r.headers["API-Signature"] ?? "")
            ? { status: 200, caller: { userId: r.headers["API-PublicKey"], level: 1, address: null } }
            : { status: 401, error: { code: "UNAUTHORIZED", message: "Malformed API-Signature" } },
        ),
      });
    });
    const first = client.verify(request);
    const junk: SignedRequest["headers"][] = [
      { "API-PublicKey": "k".repeat(10_000), "API-Signature": SIG },
      { "API-PublicKey": "pk", "API-Signature": "s".repeat(10_000) },
      { "API-PublicKey": "pk", "API-Signature": SIG.toUpperCase() },
      { "API-PublicKey": "pk", "API-Signature": SIG, "API-Timestamp": "1".repeat(21) },
      { "API-PublicKey": "pk", "API-Signature": SIG, "API-Timestamp": "01" },
      { "API-PublicKey": "p k", "API-Signature": SIG },
      { "API-PublicKey": "clé", "API-Signature": SIG },
    ];
    const refused = junk.map((headers) =>
      client.verify({ ...request, headers }).then(
        () => "verified",
        (error: ApiError) => `${error.status} ${error.code}`,
      ),
    );
    const honest = client.verify({ ...request, headers: { ...request.headers, "API-PublicKey": "pk-honest" } });
    release!();
    await first;
    assert.equal(
      await honest.then(
        (caller) => caller.userId,
        (error: ApiError) => `${error.status} ${error.code}: ${error.message}`,
      ),
      "pk-honest",
      "the honest request sent while junk was waiting is verified",
    );
    assert.deepEqual(await Promise.all(refused), Array(junk.length).fill("401 UNAUTHORIZED"));
    assert.deepEqual(
      sent.map((one) => (one.body as { requests: SignedRequest[] }).requests.map((r) => r.headers["API-PublicKey"])),
      [["pk"], ["pk-honest"]],
      "only well-formed requests were sent",
    );
  });
});

describe("ExchangeClient.hold", () => {
  it("posts the hold as a batch call and accepts 201 (made) and 200 (already made)", async () => {
    for (const status of [201, 200]) {
      const { client, sent } = feeHoldsWith(() => ({ status, body: { holdId: "w-1" } }));
      await client.hold(hold);
      assert.equal(sent[0].method, "POST");
      assert.equal(sent[0].headers["x-service-secret"], "s3cret");
      assert.deepEqual(sent[0].body, { calls: [{ action: "hold", ...hold }] });
    }
  });

  it("turns 400 INSUFFICIENT_BALANCE into INSUFFICIENT_FEE (402) naming the fee", async () => {
    const { client } = feeHoldsWith(() => ({
      status: 400,
      body: { code: "INSUFFICIENT_BALANCE", message: "available 1.0 USDC" },
    }));
    const error = await apiErrorOf(client.hold(hold));
    assert.equal(error.status, 402);
    assert.equal(error.code, "INSUFFICIENT_FEE");
    assert.match(error.message, /2\.5 USDC/);
    assert.match(error.message, /available 1\.0 USDC/);
  });

  it("rejects a refused hold with the exchange's code (its own 4xx), takes a 5xx or a refused request for unavailable (503): never a 500", async () => {
    const invalid = await apiErrorOf(
      feeHoldsWith(() => ({ status: 400, body: { code: "INVALID_PARAM", message: "amount: bad" } })).client.hold(hold),
    );
    assert.deepEqual([invalid.status, invalid.code, invalid.message], [400, "INVALID_PARAM", "amount: bad"]);
    const conflict = await apiErrorOf(
      feeHoldsWith(() => ({
        status: 409,
        body: { code: "HOLD_CONFLICT", message: "released before it was held" },
      })).client.hold(hold),
    );
    assert.deepEqual([conflict.status, conflict.code], [409, "HOLD_CONFLICT"]);
    const down = await apiErrorOf(
      feeHoldsWith(() => ({ status: 503, body: { code: "UNAVAILABLE", message: "" } })).client.hold(hold),
    );
    assert.equal(down.status, 503);
    const whole = await apiErrorOf(clientWith(() => json(503, { code: "UNAVAILABLE", message: "" })).client.hold(hold));
    assert.equal(whole.status, 503);
    const refused = await apiErrorOf(clientWith(() => new Response(null, { status: 404 })).client.hold(hold));
    assert.deepEqual([refused.status, refused.code], [503, "UNAVAILABLE"]);
    const unreadable = await apiErrorOf(clientWith(() => json(200, { results: [] })).client.hold(hold));
    assert.deepEqual([unreadable.status, unreadable.code], [503, "UNAVAILABLE"]);
    assert.match(unreadable.message, /unreadably/);
    for (const error of [down, whole, refused, unreadable]) assert.equal(error.headers["Retry-After"], "2");
  });
});

describe("ExchangeClient fee-hold batches", () => {
  it("sends a call at once when idle; calls made while a request is out share the next, each with its own answer", async () => {
    const { client, sent, release } = holdingFirst("calls", (calls) =>
      calls.map((call) =>
        call.holdId === "w-poor"
          ? { status: 400, error: { code: "INSUFFICIENT_BALANCE", message: "0 USDC available" } }
          : { status: call.action === "hold" ? 201 : 200, hold: { holdId: call.holdId } },
      ),
    );
    const first = client.hold(hold);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(sent.length, 1, "the first call went alone, at once");
    const later = [
      client.settle("w-0", "0xabc"),
      client.hold({ ...hold, holdId: "w-poor" }),
      client.release("w-2"),
    ].map((p) =>
      p.then(
        (refused) => refused?.code ?? "ok",
        (error: ApiError) => error.code,
      ),
    );
    assert.equal(sent.length, 1, "the others wait for the request in flight");
    release();
    await first;
    assert.deepEqual(await Promise.all(later), ["ok", "INSUFFICIENT_FEE", "ok"]);
    assert.equal(sent.length, 2);
    assert.deepEqual(sent[1].body, {
      calls: [
        { action: "settle", holdId: "w-0", reference: "0xabc" },
        { action: "hold", ...hold, holdId: "w-poor" },
        { action: "release", holdId: "w-2" },
      ],
    });
  });

  it("fails every call of a request that got no answer, and the next request still goes", async () => {
    let calls = 0;
    const { client } = clientWith(({ body }) =>
      ++calls === 1
        ? Promise.reject(new TypeError("fetch failed"))
        : json(200, { results: (body as { calls: any[] }).calls.map(() => ({ status: 200, hold: {} })) }),
    );
    const error = await apiErrorOf(client.settle("w-1", "0x1"));
    assert.equal(error.status, 503);
    await client.settle("w-1", "0x1");
  });
});

describe("ExchangeClient.settle and release", () => {
  it("settles with the reference, and only 200 is success", async () => {
    const { client, sent } = feeHoldsWith(() => ({ status: 200, body: {} }));
    await client.settle("w-1", "0xabc");
    assert.deepEqual(sent[0].body, { calls: [{ action: "settle", holdId: "w-1", reference: "0xabc" }] });
    const missing = await apiErrorOf(
      feeHoldsWith(() => ({ status: 404, body: { code: "NOT_FOUND", message: "" } })).client.settle("w", "r"),
    );
    assert.deepEqual([missing.status, missing.code], [404, "NOT_FOUND"]);
  });

  it("releases, and a hold the exchange never made (404) is fine", async () => {
    for (const status of [200, 404]) {
      const { client, sent } = feeHoldsWith(() => ({ status, body: { code: "NOT_FOUND", message: "no such hold" } }));
      await client.release("w-1");
      assert.equal(sent[0].headers["x-service-secret"], "s3cret");
      assert.deepEqual(sent[0].body, { calls: [{ action: "release", holdId: "w-1" }] });
    }
    const refused = await apiErrorOf(
      feeHoldsWith(() => ({ status: 400, body: { code: "X", message: "" } })).client.release("w-1"),
    );
    assert.deepEqual([refused.status, refused.code], [400, "X"]);
    const down = await apiErrorOf(
      clientWith(() => Promise.reject(new TypeError("fetch failed"))).client.release("w-1"),
    );
    assert.equal(down.status, 503);
  });
});
