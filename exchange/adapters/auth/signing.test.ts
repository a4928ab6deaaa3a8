import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "vitest";
import { sign, signRequest, signatureText, verifySignature } from "./signing.ts";

const PUBLIC = "pk_example";
const PRIVATE = "sk_example";
const URL_ = "https://host/api/orders";
const BODY = '{"isBid":true,"currencyPairCode":"ALPHA_USDT","amount":1.5,"price":0.25}';
const hmac = (key: string, text: string) =>
  createHmac("sha256", Buffer.from(key, "utf8")).update(Buffer.from(text, "utf8")).digest("hex");

describe("signing: known answers", () => {
  it("signs publicKey + url + body with HMAC-SHA256, lowercase hex", () => {
    const text = signatureText({ publicKey: PUBLIC, url: URL_, body: BODY });
    assert.equal(text, PUBLIC + URL_ + BODY);
    assert.equal(sign(PRIVATE, text), hmac(PRIVATE, PUBLIC + URL_ + BODY));
    // Pinned, so a change of encoding or algorithm cannot pass by changing both sides.
    assert.equal(sign(PRIVATE, text), "084fa7643c8c6b35febaef04e25cffdc0f562567bdd45a8b2335fe192a70a26e");
  });

  it("appends API-Timestamp to the text when given (our extension)", () => {
    const text = signatureText({ publicKey: PUBLIC, url: URL_, body: BODY, timestamp: 1700000000000 });
    assert.equal(text, `${PUBLIC + URL_ + BODY}1700000000000`);
    assert.equal(sign(PRIVATE, text), "89bf91261899b94ddfcacfa114679abb911ef6ca250920bd58bba24c0b62ae8a");
  });

  it("uses the UTF-8 bytes of key and text", () => {
    const key = "sk_ключ🔑";
    const text = signatureText({ publicKey: PUBLIC, url: URL_, body: '{"note":"héllo ✓"}' });
    assert.equal(sign(key, text), hmac(key, text));
  });

  it("signRequest produces the headers a client sends", () => {
    assert.deepEqual(signRequest({ publicKey: PUBLIC, privateKey: PRIVATE, method: "POST", url: URL_, body: BODY }), {
      "API-PublicKey": PUBLIC,
      "API-Signature": hmac(PRIVATE, PUBLIC + URL_ + BODY),
    });
    assert.deepEqual(
      signRequest({ publicKey: PUBLIC, privateKey: PRIVATE, method: "GET", url: `${URL_}?pageSize=5`, timestamp: 42 }),
      {
        "API-PublicKey": PUBLIC,
        "API-Signature": hmac(PRIVATE, `${PUBLIC}${URL_}?pageSize=542`),
        "API-Timestamp": "42",
      },
    );
    // DELETE is signed with the empty body.
    const del = signRequest({ publicKey: PUBLIC, privateKey: PRIVATE, method: "DELETE", url: `${URL_}/7` });
    assert.equal(del["API-Signature"], hmac(PRIVATE, `${PUBLIC}${URL_}/7`));
  });

  it("signRequest signs the URL as fetch sends it", () => {
    const headers = signRequest({
      publicKey: PUBLIC,
      privateKey: PRIVATE,
      method: "GET",
      url: "HTTP://Host:80/api/orders?a=1#frag",
    });
    assert.equal(headers["API-Signature"], hmac(PRIVATE, `${PUBLIC}http://host/api/orders?a=1`));
  });

  it("signRequest refuses a body on GET/DELETE and a non-integer timestamp", () => {
    assert.throws(
      () => signRequest({ publicKey: PUBLIC, privateKey: PRIVATE, method: "GET", url: URL_, body: "{}" }),
      TypeError,
    );
    assert.throws(
      () => signRequest({ publicKey: PUBLIC, privateKey: PRIVATE, method: "delete", url: URL_, body: "{}" }),
      TypeError,
    );
    for (const timestamp of [1.5, -1, Number.NaN, 2 ** 60]) {
      assert.throws(
        () => signRequest({ publicKey: PUBLIC, privateKey: PRIVATE, method: "GET", url: URL_, timestamp }),
        TypeError,
        String(timestamp),
      );
    }
  });
});

describe("verifySignature", () => {
  const text = PUBLIC + URL_ + BODY;
  const good = hmac(PRIVATE, text);

  it("accepts the right signature", () => {
    assert.equal(verifySignature(PRIVATE, text, good), true);
  });

  it("binds the body byte for byte", () => {
    const reordered = '{"currencyPairCode":"ALPHA_USDT","isBid":true,"amount":1.5,"price":0.25}';
    const spaced = '{"isBid": true,"currencyPairCode":"ALPHA_USDT","amount":1.5,"price":0.25}';
    const trailingNewline = `${BODY}\n`;
    // Same JSON value, different bytes: still a different request.
    for (const body of [reordered, spaced, trailingNewline, BODY.replace("1.5", "1.50")]) {
      assert.deepEqual(JSON.parse(body), JSON.parse(BODY));
      assert.equal(verifySignature(PRIVATE, PUBLIC + URL_ + body, good), false, body);
    }
  });

  it("rejects the wrong key", () => {
    assert.equal(verifySignature("sk_other", text, good), false);
  });

  // Decision: only lowercase hex, as the spec writes it. One canonical encoding per request.
  it("rejects uppercase hex, wrong lengths and non-hex without throwing", () => {
    const bad = [
      good.toUpperCase(),
      good.slice(2),
      `${good}00`,
      good.slice(0, 63),
      "",
      `zz${good.slice(2)}`,
      ` ${good.slice(1)}`,
      `0x${good.slice(2)}`,
      "é".repeat(64),
    ];
    for (const signature of bad) assert.equal(verifySignature(PRIVATE, text, signature), false, signature);
    assert.equal(verifySignature(PRIVATE, text, undefined as unknown as string), false);
    assert.equal(verifySignature(PRIVATE, text, 42 as unknown as string), false);
  });
});
