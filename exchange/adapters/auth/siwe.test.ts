import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { type SiweExpectations, verifySiwe } from "./siwe.ts";

const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);
const alice = privateKeyToAccount(`0x${"11".repeat(32)}`);
const mallory = privateKeyToAccount(`0x${"22".repeat(32)}`);
const ORIGIN = "http://127.0.0.1:3000";
const NONCE = "abcdef0123456789ABCDEF01";

const expect = (overrides: Partial<SiweExpectations> = {}): SiweExpectations => ({
  origins: ["http://localhost:3000", ORIGIN],
  chainId: 31337,
  nowMs: NOW,
  maxAgeMs: 10 * 60_000,
  nonceIsLive: (nonce) => nonce === NONCE,
  ...overrides,
});

const message = (fields: Partial<Parameters<typeof createSiweMessage>[0]> = {}) =>
  createSiweMessage({
    address: alice.address,
    domain: "127.0.0.1:3000",
    uri: `${ORIGIN}/account`,
    version: "1",
    chainId: 31337,
    nonce: NONCE,
    issuedAt: new Date(NOW - 5_000),
    statement: "Sign in to the exchange.",
    ...fields,
  });

async function verdict(text: string, signer = alice, options?: Partial<SiweExpectations>) {
  return verifySiwe(text, await signer.signMessage({ message: text }), expect(options));
}

describe("verifySiwe", () => {
  it("accepts the web app's message signed by its address, and names the address and nonce", async () => {
    assert.deepEqual(await verdict(message()), { ok: true, address: alice.address, nonce: NONCE });
  });

  it("refuses each wrong field with its reason", async () => {
    const cases: [string, Awaited<ReturnType<typeof verdict>>][] = [
      ["another domain", await verdict(message({ domain: "evil.example", uri: "https://evil.example/" }))],
      ["a URI off the origin", await verdict(message({ uri: "https://evil.example/login" }))],
      ["another chain", await verdict(message({ chainId: 1 }))],
      ["issued an hour ago", await verdict(message({ issuedAt: new Date(NOW - 3_600_000) }))],
      ["issued in the future", await verdict(message({ issuedAt: new Date(NOW + 600_000) }))],
      ["expired", await verdict(message({ expirationTime: new Date(NOW - 1_000) }))],
      ["not valid yet", await verdict(message({ notBefore: new Date(NOW + 60_000) }))],
      ["an unknown nonce", await verdict(message({ nonce: "ffffffffffffffff" }))],
      ["signed by someone else", await verdict(message(), mallory)],
    ];
    assert.deepEqual(
      cases.map(([what, v]) => [what, v.ok ? "accepted" : v.reason]),
      [
        ["another domain", "domain"],
        ["a URI off the origin", "domain"],
        ["another chain", "chain"],
        ["issued an hour ago", "stale"],
        ["issued in the future", "stale"],
        ["expired", "stale"],
        ["not valid yet", "stale"],
        ["an unknown nonce", "nonce"],
        ["signed by someone else", "signature"],
      ],
    );
  });

  it("calls malformed what is no EIP-4361 message or no signature", async () => {
    for (const [text, signature] of [
      ["hello", await alice.signMessage({ message: "hello" })],
      [message(), "0x1234"],
      [message(), "not hex"],
      [message().replace(/Issued At: .*/, "Issued At: whenever"), await alice.signMessage({ message: "x" })],
    ] as const) {
      const v = await verifySiwe(text, signature, expect());
      assert.equal(v.ok ? "accepted" : v.reason, "malformed", text.slice(0, 20));
    }
  });
});
