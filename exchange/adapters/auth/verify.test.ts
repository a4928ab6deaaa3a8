import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { createReplayGuard } from "./replay.ts";
import { sign, signRequest, signatureText } from "./signing.ts";
import {
  DEFAULT_MAX_FUTURE_MS,
  DEFAULT_TIMESTAMP_WINDOW_MS,
  verifySignedRequest,
  type ResolvedKey,
  type VerifySignedRequestInput,
} from "./verify.ts";

const NOW = 1_700_000_000_000;
const alice = { publicKey: "pk_alice", privateKey: "sk_alice", userId: "u-alice" };
const URL_ = "http://localhost:8080/api/orders";
const BODY = '{"isBid":true,"currencyPairCode":"ALPHA_USDT","amount":1.5,"price":0.25}';

function keys(): { resolve: (publicKey: string) => ResolvedKey | undefined; lookups: string[] } {
  const lookups: string[] = [];
  return {
    lookups,
    resolve: (publicKey) => {
      lookups.push(publicKey);
      return publicKey === alice.publicKey ? { privateKey: alice.privateKey, userId: alice.userId } : undefined;
    },
  };
}

/** A request alice signed, with the parts a test may then alter. */
function request(overrides: Partial<VerifySignedRequestInput> & { timestamp?: number } = {}): VerifySignedRequestInput {
  const method = overrides.method ?? "POST";
  const body = overrides.body ?? (method === "GET" || method === "DELETE" ? "" : BODY);
  const h = signRequest({ ...alice, method, url: URL_, body, timestamp: overrides.timestamp });
  return {
    method,
    url: URL_,
    body,
    headers: { publicKey: h["API-PublicKey"], signature: h["API-Signature"], timestamp: h["API-Timestamp"] },
    resolveKey: keys().resolve,
    now: () => NOW,
    windowMs: 30_000,
    requireTimestamp: false,
    ...overrides,
  };
}

async function reason(input: VerifySignedRequestInput): Promise<string> {
  const verdict = await verifySignedRequest(input);
  assert.equal(verdict.ok, false, "expected a rejection");
  return (verdict as { reason: string }).reason;
}

describe("verifySignedRequest", () => {
  it("accepts a signed request and says who signed it", async () => {
    assert.deepEqual(await verifySignedRequest(request()), { ok: true, userId: "u-alice", publicKey: "pk_alice" });
    assert.equal((await verifySignedRequest(request({ method: "GET" }))).ok, true);
    assert.equal((await verifySignedRequest(request({ timestamp: NOW }))).ok, true);
  });

  it("supports an async resolver", async () => {
    const { resolve } = keys();
    assert.equal((await verifySignedRequest(request({ resolveKey: async (k) => resolve(k) }))).ok, true);
  });

  it("names missing headers", async () => {
    const base = request();
    assert.match(
      await reason({ ...base, headers: { ...base.headers, publicKey: undefined } }),
      /Missing API-PublicKey/,
    );
    assert.match(await reason({ ...base, headers: { ...base.headers, publicKey: "" } }), /Missing API-PublicKey/);
    assert.match(
      await reason({ ...base, headers: { ...base.headers, signature: undefined } }),
      /Missing API-Signature/,
    );
    assert.match(await reason({ ...base, headers: {} }), /Missing/);
  });

  it("refuses malformed signatures before looking the key up", async () => {
    const base = request();
    const good = base.headers.signature!;
    for (const signature of [good.toUpperCase(), good.slice(1), `${good}0`, "g".repeat(64), ` ${good.slice(1)}`]) {
      const store = keys();
      assert.match(
        await reason({ ...base, resolveKey: store.resolve, headers: { ...base.headers, signature } }),
        /Malformed API-Signature/,
      );
      assert.deepEqual(store.lookups, []);
    }
  });

  it("refuses unknown keys and absurdly long ones without a lookup", async () => {
    const base = request();
    assert.match(
      await reason({ ...base, headers: { ...base.headers, publicKey: "pk_unknown" } }),
      /Unknown or revoked/,
    );
    const store = keys();
    assert.match(
      await reason({ ...base, resolveKey: store.resolve, headers: { ...base.headers, publicKey: "p".repeat(10_000) } }),
      /Unknown or revoked/,
    );
    assert.deepEqual(store.lookups, []);
  });

  it("binds URL, body and key, and never reveals the expected signature", async () => {
    const base = request();
    const expected = sign(alice.privateKey, signatureText({ publicKey: alice.publicKey, url: URL_, body: BODY }));
    const cases: VerifySignedRequestInput[] = [
      { ...base, url: `${URL_}?x=1` },
      { ...base, url: URL_.replace("http:", "https:") },
      { ...base, body: BODY.replace(":1.5", ": 1.5") },
      { ...base, body: "" },
      { ...base, method: "GET" }, // a POST signature with its body does not pass as a GET
      { ...base, resolveKey: () => ({ privateKey: "sk_other", userId: "u-alice" }) },
      { ...base, headers: { ...base.headers, signature: "0".repeat(64) } },
    ];
    for (const input of cases) {
      const why = await reason(input);
      assert.match(why, /Invalid API-Signature/);
      assert.ok(!why.includes(expected) && !why.includes(alice.privateKey), why);
    }
  });

  it("signs GET and DELETE with the empty body, whatever arrives", async () => {
    const get = request({ method: "GET" });
    assert.equal((await verifySignedRequest({ ...get, body: '{"sneaky":1}' })).ok, true);
    const del = request({ method: "DELETE" });
    assert.equal((await verifySignedRequest({ ...del, body: "junk" })).ok, true);
    assert.equal((await verifySignedRequest({ ...del, method: "delete" })).ok, true);
  });

  it("defaults the window to 30 s", () => {
    assert.equal(DEFAULT_TIMESTAMP_WINDOW_MS, 30_000);
  });

  describe("API-Timestamp", () => {
    const at = (timestamp: number, now = NOW) => request({ timestamp, now: () => now, windowMs: undefined });

    it("accepts 30 s behind and 1 s ahead of server time, and refuses one ms beyond either", async () => {
      assert.equal(DEFAULT_MAX_FUTURE_MS, 1_000);
      assert.equal((await verifySignedRequest(at(NOW - 30_000))).ok, true);
      assert.equal((await verifySignedRequest(at(NOW + 1_000))).ok, true);
      assert.match(await reason(at(NOW - 30_001)), /Stale API-Timestamp/);
      assert.equal(
        await reason(at(NOW + 1_001)),
        `API-Timestamp ${NOW + 1_001} is 1001 ms ahead of server time ${NOW}; at most 1000 ms ahead is accepted (check the client's clock)`,
      );
      // A clock 20 s fast was accepted under the old symmetric window; it is refused now.
      assert.match(await reason(at(NOW + 20_000)), /ahead of server time/);
      assert.match(await reason(request({ timestamp: NOW - 5_000, windowMs: 1_000 })), /Stale/);
      assert.equal((await verifySignedRequest(request({ timestamp: NOW + 5_000, maxFutureMs: 5_000 }))).ok, true);
    });

    it("is covered by the signature: altering, adding or removing it fails", async () => {
      const signed = request({ timestamp: NOW });
      assert.match(
        await reason({ ...signed, headers: { ...signed.headers, timestamp: String(NOW + 1) } }),
        /Invalid API-Signature/,
      );
      assert.match(
        await reason({ ...signed, headers: { ...signed.headers, timestamp: undefined } }),
        /Invalid API-Signature/,
      );
      const unsigned = request();
      assert.match(
        await reason({ ...unsigned, headers: { ...unsigned.headers, timestamp: String(NOW) } }),
        /Invalid API-Signature/,
      );
    });

    it("refuses non-canonical integers", async () => {
      const base = request({ timestamp: NOW });
      for (const timestamp of [
        "1.7e12",
        "+1700000000000",
        "01700000000000",
        " 1700000000000",
        "1700000000000.0",
        "-1700000000000",
        "abc",
        "9".repeat(40),
      ]) {
        assert.match(
          await reason({ ...base, headers: { ...base.headers, timestamp } }),
          /Malformed API-Timestamp/,
          timestamp,
        );
      }
    });

    it("can be required", async () => {
      assert.match(await reason(request({ requireTimestamp: true })), /Missing API-Timestamp/);
      assert.equal((await verifySignedRequest(request({ requireTimestamp: true, timestamp: NOW }))).ok, true);
    });
  });

  describe("with a replay guard", () => {
    it("accepts a timestamped signature once, on any route sharing the guard", async () => {
      const replay = createReplayGuard({ startedAt: NOW - 10_000 });
      const input = request({ timestamp: NOW, replay });
      assert.equal((await verifySignedRequest(input)).ok, true);
      assert.match(await reason(input), /^Replayed request/);
      assert.match(await reason({ ...input, now: () => NOW + 29_000 }), /^Replayed request/);
      // Re-signed with a new timestamp (a client retrying with its clientOrderId): not a replay.
      assert.equal((await verifySignedRequest(request({ timestamp: NOW + 1, replay }))).ok, true);
    });

    it("refuses timestamps from before the server started (a restart emptied the cache)", async () => {
      const replay = createReplayGuard({ startedAt: NOW - 1_000 });
      assert.match(await reason(request({ timestamp: NOW - 1_001, replay })), /before this server started/);
      assert.equal((await verifySignedRequest(request({ timestamp: NOW, replay }))).ok, true);
    });

    it("refuses after a restart what the previous process could have accepted ahead of its clock", async () => {
      // The old process, at NOW - 300 (just before it stopped), accepted a timestamp 800 ms ahead.
      const old = createReplayGuard({ startedAt: NOW - 60_000 });
      const ahead = request({ timestamp: NOW + 500, now: () => NOW - 300, replay: old });
      assert.equal((await verifySignedRequest(ahead)).ok, true);
      // Restarted at NOW: the same bytes are within the clock rule, but the start rule refuses them.
      const restarted = createReplayGuard({ startedAt: NOW });
      assert.match(
        await reason({ ...ahead, now: () => NOW + 10, replay: restarted }),
        /before this server started \(timestamps from 1700000001000 are accepted\)/,
      );
      assert.equal(
        (await verifySignedRequest(request({ timestamp: NOW + 1_000, now: () => NOW + 10, replay: restarted }))).ok,
        true,
      );
    });

    it("never claims an invalid signature, so only a key's owner fills the cache", async () => {
      const replay = createReplayGuard({ startedAt: NOW - 10_000 });
      const forged = request({ timestamp: NOW, replay });
      await reason({ ...forged, headers: { ...forged.headers, signature: "0".repeat(64) } });
      assert.equal(replay.size(), 0);
    });

    it("keeps accepting untimestamped requests as the spec's scheme allows (they can be replayed)", async () => {
      const replay = createReplayGuard({ startedAt: NOW });
      assert.equal((await verifySignedRequest(request({ replay }))).ok, true);
      assert.equal((await verifySignedRequest(request({ replay }))).ok, true);
      assert.equal(replay.size(), 0);
    });

    it("answers a full cache with a retry time instead of evicting", async () => {
      const replay = createReplayGuard({ startedAt: NOW - 10_000, maxEntries: 1 });
      assert.equal((await verifySignedRequest(request({ timestamp: NOW, replay }))).ok, true);
      const verdict = await verifySignedRequest(request({ timestamp: NOW + 1, replay }));
      assert.ok(
        !verdict.ok && verdict.retryAfterSeconds !== undefined && verdict.retryAfterSeconds >= 1,
        JSON.stringify(verdict),
      );
    });
  });
});
