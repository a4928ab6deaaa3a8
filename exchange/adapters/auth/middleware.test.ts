import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { Hono } from "hono";
import { errorHandler } from "../../../lib/http/index.ts";
import { signedRequest, type SignedRequestOptions, type SignedVariables } from "./middleware.ts";
import { signRequest } from "./signing.ts";

const NOW = 1_700_000_000_000;
const alice = { publicKey: "pk_alice", privateKey: "sk_alice" };
const users: Record<string, { privateKey: string; userId: string }> = {
  pk_alice: { privateKey: "sk_alice", userId: "u-alice" },
};
const ORDER = '{"isBid":true,"currencyPairCode":"ALPHA_USDT","amount":1.5,"price":0.25}';

function app(options: Partial<SignedRequestOptions> = {}) {
  const logged: unknown[] = [];
  const api = new Hono<{ Variables: SignedVariables }>();
  api.use("/api/*", signedRequest({ resolveKey: (k) => users[k], now: () => NOW, ...options }));
  // Echoes what a handler sees, and proves it can parse the verified bytes.
  const echo = (c: any) =>
    c.json({
      auth: c.get("auth"),
      rawBody: c.get("rawBody"),
      parsed: c.get("rawBody") === "" ? null : JSON.parse(c.get("rawBody")),
    });
  api.post("/api/orders", echo);
  api.get("/api/balances", echo);
  api.delete("/api/orders/:id", echo);
  api.onError(errorHandler({ log: (message, error) => logged.push([message, error]) }));
  return { api, logged };
}

async function send(api: Hono<any>, method: string, url: string, body: string, headers: Record<string, string>) {
  const res = await api.request(url, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body === "" ? {} : { body }),
  });
  return { status: res.status, json: (await res.json()) as any };
}

describe("signedRequest middleware", () => {
  it("lets a signed POST through with auth and the exact raw body", async () => {
    const { api } = app();
    const url = "http://localhost/api/orders";
    const res = await send(api, "POST", url, ORDER, signRequest({ ...alice, method: "POST", url, body: ORDER }));
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.auth, { userId: "u-alice", publicKey: "pk_alice" });
    assert.equal(res.json.rawBody, ORDER);
    assert.deepEqual(res.json.parsed, JSON.parse(ORDER));
  });

  it("signs GET and DELETE with an empty body and hides any body sent with them", async () => {
    const { api } = app();
    const get = "http://localhost/api/balances?currency=USDT";
    assert.deepEqual(
      (await send(api, "GET", get, "", signRequest({ ...alice, method: "GET", url: get }))).json.rawBody,
      "",
    );
    const del = "http://localhost/api/orders/7";
    const res = await send(api, "DELETE", del, '{"all":true}', signRequest({ ...alice, method: "DELETE", url: del }));
    assert.equal(res.status, 200);
    assert.equal(res.json.rawBody, "");
  });

  it("answers 401 UNAUTHORIZED, never 500, to missing, malformed and wrong credentials", async () => {
    const { api, logged } = app();
    const url = "http://localhost/api/orders";
    const good = signRequest({ ...alice, method: "POST", url, body: ORDER });
    const sig = good["API-Signature"]!;
    const cases: [string, Record<string, string>, string?][] = [
      ["no headers", {}],
      ["no signature", { "API-PublicKey": "pk_alice" }],
      ["no public key", { "API-Signature": sig }],
      ["uppercase", { ...good, "API-Signature": sig.toUpperCase() }],
      ["short", { ...good, "API-Signature": sig.slice(2) }],
      ["not hex", { ...good, "API-Signature": `zz${sig.slice(2)}` }],
      ["latin-1 junk", { ...good, "API-Signature": "\u00ff".repeat(64) }],
      ["huge key", { ...good, "API-PublicKey": "x".repeat(8_000) }],
      ["unknown key", { ...good, "API-PublicKey": "pk_unknown" }],
      ["garbage timestamp", { ...good, "API-Timestamp": "soon" }],
      ["huge timestamp", { ...good, "API-Timestamp": "9".repeat(400) }],
      ["stale timestamp", signRequest({ ...alice, method: "POST", url, body: ORDER, timestamp: NOW - 60_000 })],
      ["altered body", good, ORDER.replace(":1.5", ": 1.5")],
      ["empty body", good, ""],
      ["invalid JSON body", good, "{"],
    ];
    for (const [what, headers, body] of cases) {
      const res = await send(api, "POST", url, body ?? ORDER, headers);
      assert.equal(res.status, 401, `${what}: ${JSON.stringify(res.json)}`);
      assert.equal(res.json.code, "UNAUTHORIZED", what);
      assert.ok(!JSON.stringify(res.json).includes(sig), `${what} echoes a signature`);
    }
    assert.deepEqual(logged, []);
  });

  it("never puts the expected signature in the answer", async () => {
    const { api } = app();
    const url = "http://localhost/api/orders";
    const expected = signRequest({ ...alice, method: "POST", url, body: ORDER })["API-Signature"]!;
    const res = await send(api, "POST", url, ORDER, { "API-PublicKey": "pk_alice", "API-Signature": "0".repeat(64) });
    assert.equal(res.status, 401);
    assert.ok(!JSON.stringify(res.json).includes(expected));
    assert.match(res.json.message, /Invalid API-Signature/);
  });

  it("applies the timestamp window and can require a timestamp", async () => {
    const url = "http://localhost/api/balances";
    const { api } = app({ timestampWindowMs: 5_000, requireTimestamp: true });
    assert.equal((await send(api, "GET", url, "", signRequest({ ...alice, method: "GET", url }))).status, 401);
    assert.equal(
      (await send(api, "GET", url, "", signRequest({ ...alice, method: "GET", url, timestamp: NOW - 5_000 }))).status,
      200,
    );
    assert.equal(
      (await send(api, "GET", url, "", signRequest({ ...alice, method: "GET", url, timestamp: NOW + 5_001 }))).status,
      401,
    );
    const tampered = {
      ...signRequest({ ...alice, method: "GET", url, timestamp: NOW }),
      "API-Timestamp": String(NOW + 1),
    };
    assert.equal((await send(api, "GET", url, "", tampered)).status, 401);
  });

  it("verifies against the URL the client used when told how to rebuild it behind a proxy", async () => {
    const publicUrl = "https://exchange.example.com/api/balances?x=1";
    const headers = signRequest({ ...alice, method: "GET", url: publicUrl });
    const internalUrl = "http://10.0.0.5:8080/api/balances?x=1";
    assert.equal((await send(app().api, "GET", internalUrl, "", headers)).status, 401);
    const behindProxy = app({
      requestUrl: (c) => {
        const url = new URL(c.req.url);
        return `https://exchange.example.com${url.pathname}${url.search}`;
      },
    });
    assert.equal((await send(behindProxy.api, "GET", internalUrl, "", headers)).status, 200);
  });

  it("treats a failing key store as a server fault, not as a bad signature", async () => {
    const { api, logged } = app({
      resolveKey: () => {
        throw new Error("vault: authentication failed");
      },
    });
    const url = "http://localhost/api/balances";
    const res = await send(api, "GET", url, "", signRequest({ ...alice, method: "GET", url }));
    assert.equal(res.status, 500);
    assert.deepEqual(res.json, { code: "INTERNAL", message: "Internal error" });
    assert.equal(logged.length, 1);
  });

  it("refuses a nonsensical window at construction", () => {
    assert.throws(() => signedRequest({ resolveKey: () => undefined, timestampWindowMs: -1 }));
    assert.throws(() => signedRequest({ resolveKey: () => undefined, timestampWindowMs: Number.NaN }));
  });
});
