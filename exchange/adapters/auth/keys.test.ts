import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "vitest";
import { createKeyVault, generateApiKeyPair, parseServerKey } from "./keys.ts";

describe("generateApiKeyPair", () => {
  it("makes prefixed 256-bit base64url keys, never the same twice", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100; i++) {
      const { publicKey, privateKey } = generateApiKeyPair();
      assert.match(publicKey, /^pk_[A-Za-z0-9_-]{43}$/);
      assert.match(privateKey, /^sk_[A-Za-z0-9_-]{43}$/);
      assert.ok(!seen.has(publicKey) && !seen.has(privateKey));
      seen.add(publicKey).add(privateKey);
    }
  });
});

describe("key vault", () => {
  const serverKey = randomBytes(32);
  const vault = createKeyVault(serverKey);
  const { publicKey, privateKey } = generateApiKeyPair();

  it("round-trips, with a fresh IV every time", () => {
    const a = vault.encrypt(publicKey, privateKey);
    const b = vault.encrypt(publicKey, privateKey);
    assert.match(a, /^v1:[A-Za-z0-9+/=]{16}:[A-Za-z0-9+/=]{24}:[A-Za-z0-9+/=]+$/);
    assert.notEqual(a, b);
    assert.equal(vault.decrypt(publicKey, a), privateKey);
    assert.equal(vault.decrypt(publicKey, b), privateKey);
    assert.ok(!a.includes(privateKey));
    assert.equal(vault.decrypt("pk_x", vault.encrypt("pk_x", "ключ ✓")), "ключ ✓");
  });

  it("throws on any tampering", () => {
    const stored = vault.encrypt(publicKey, privateKey);
    const [version, iv, tag, ciphertext] = stored.split(":") as [string, string, string, string];
    const flip = (b64: string) => {
      const bytes = Buffer.from(b64, "base64");
      bytes[0]! ^= 1;
      return bytes.toString("base64");
    };
    const tampered = [
      [version, flip(iv), tag, ciphertext],
      [version, iv, flip(tag), ciphertext],
      [version, iv, tag, flip(ciphertext)],
      [version, iv, tag, ciphertext.slice(4)],
      [version, iv, tag, `${ciphertext}AAAA`],
      ["v2", iv, tag, ciphertext],
      [version, iv.slice(0, -4), tag, ciphertext],
      [version, iv, tag, ciphertext.replace(/.$/, "!")],
      [version, iv, tag],
      [version, iv, tag, ciphertext, ""],
    ];
    for (const parts of tampered)
      assert.throws(() => vault.decrypt(publicKey, parts.join(":")), Error, parts.join(":"));
    assert.throws(() => vault.decrypt(publicKey, ""));
  });

  it("binds the public key: another row's ciphertext does not decrypt", () => {
    const stored = vault.encrypt(publicKey, privateKey);
    assert.throws(() => vault.decrypt(generateApiKeyPair().publicKey, stored), /authentication failed/);
  });

  it("does not decrypt under another server key", () => {
    const stored = vault.encrypt(publicKey, privateKey);
    assert.throws(() => createKeyVault(randomBytes(32)).decrypt(publicKey, stored), /authentication failed/);
  });

  it("keeps its own copy of the server key", () => {
    const key = randomBytes(32);
    const own = createKeyVault(key);
    const stored = own.encrypt(publicKey, privateKey);
    key.fill(0);
    assert.equal(own.decrypt(publicKey, stored), privateKey);
  });

  it("refuses server keys that are not 32 bytes", () => {
    assert.throws(() => createKeyVault(randomBytes(31)), /32 bytes/);
    assert.throws(() => createKeyVault(randomBytes(33)), /32 bytes/);
  });
});

describe("parseServerKey", () => {
  const bytes = randomBytes(32);

  it("reads 64 hex characters (any case) and base64 / base64url of 32 bytes", () => {
    assert.deepEqual(parseServerKey(bytes.toString("hex")), bytes);
    assert.deepEqual(parseServerKey(bytes.toString("hex").toUpperCase()), bytes);
    assert.deepEqual(parseServerKey(bytes.toString("base64")), bytes);
    assert.deepEqual(parseServerKey(bytes.toString("base64url")), bytes);
    assert.deepEqual(parseServerKey(` ${bytes.toString("hex")}\n`), bytes);
  });

  it("explains what it wants, without echoing the value", () => {
    const wrong = [
      bytes.toString("hex").slice(2),
      randomBytes(48).toString("base64"),
      randomBytes(16).toString("base64"),
      "",
      "correct horse battery staple",
      `${bytes.toString("hex")}00`,
    ];
    for (const text of wrong) {
      assert.throws(
        () => parseServerKey(text),
        (error: Error) =>
          /64 hex characters or as base64/.test(error.message) && (text === "" || !error.message.includes(text)),
        text,
      );
    }
  });
});
