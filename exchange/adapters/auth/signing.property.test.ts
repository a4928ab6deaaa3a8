import assert from "node:assert/strict";
import { describe, it } from "vitest";
import fc from "fast-check";
import { sign, signRequest, signatureText, verifySignature } from "./signing.ts";

// Reproduce a failure with FC_SEED=<printed seed>.
const seed = process.env.FC_SEED === undefined ? 20_250_601 : Number(process.env.FC_SEED);
if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer, got ${process.env.FC_SEED}`);
console.log(`signing.property: fast-check seed ${seed}`);
const params = { seed, numRuns: 300 };

const key = fc.string({ unit: "binary", minLength: 1, maxLength: 64 });
const body = fc.oneof(fc.json(), fc.string({ unit: "binary", maxLength: 200 }));
/** Any Unicode scalar value (no surrogate halves: those are not text and have no UTF-8 form). */
const scalar = fc
  .oneof(fc.integer({ min: 0, max: 0xd7ff }), fc.integer({ min: 0xe000, max: 0x10ffff }))
  .map((cp) => String.fromCodePoint(cp));

describe("signing properties", () => {
  it("sign/verify round trip over random keys, URLs and bodies", () => {
    fc.assert(
      fc.property(
        key,
        key,
        fc.webUrl({ withQueryParameters: true }),
        body,
        fc.option(fc.nat(), { nil: undefined }),
        (publicKey, privateKey, url, text, timestamp) => {
          const full = signatureText({ publicKey, url, body: text, timestamp });
          assert.match(sign(privateKey, full), /^[0-9a-f]{64}$/);
          assert.equal(verifySignature(privateKey, full, sign(privateKey, full)), true);
          const headers = signRequest({ publicKey, privateKey, method: "POST", url, body: text, timestamp });
          assert.equal(
            verifySignature(
              privateKey,
              signatureText({ publicKey, url: new URL(url).href.replace(/#.*$/, ""), body: text, timestamp }),
              headers["API-Signature"]!,
            ),
            true,
          );
        },
      ),
      params,
    );
  });

  it("any single-character change to the body fails verification", () => {
    const withEdit = body
      .filter((text) => text.length > 0)
      .chain((text) => {
        const chars = Array.from(text);
        return fc.tuple(fc.constant(chars), fc.nat({ max: chars.length - 1 }), scalar);
      })
      .filter(([chars, index, replacement]) => chars[index] !== replacement);
    fc.assert(
      fc.property(key, key, fc.webUrl(), withEdit, (publicKey, privateKey, url, [chars, index, replacement]) => {
        const original = chars.join("");
        const edited = chars.with(index, replacement).join("");
        const signature = sign(privateKey, signatureText({ publicKey, url, body: original }));
        assert.equal(verifySignature(privateKey, signatureText({ publicKey, url, body: edited }), signature), false);
      }),
      params,
    );
  });
});
