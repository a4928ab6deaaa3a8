import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

// API key material: generation, and the encryption of private keys at rest. The server must
// know each private key (HMAC is symmetric), so the database holds them encrypted under a
// server key that lives outside the database.

export const PUBLIC_KEY_PREFIX = "pk_";
export const PRIVATE_KEY_PREFIX = "sk_";

export interface ApiKeyPair {
  readonly publicKey: string;
  readonly privateKey: string;
}

/**
 * 256 random bits each, base64url (header- and URL-safe). The prefixes make a leaked secret
 * recognizable to secret scanners and stop users pasting one key where the other belongs.
 */
export function generateApiKeyPair(): ApiKeyPair {
  return {
    publicKey: PUBLIC_KEY_PREFIX + randomBytes(32).toString("base64url"),
    privateKey: PRIVATE_KEY_PREFIX + randomBytes(32).toString("base64url"),
  };
}

export interface KeyVault {
  encrypt(publicKey: string, privateKey: string): string;
  /** Throws when the text was altered, belongs to another public key or another server key. */
  decrypt(publicKey: string, stored: string): string;
}

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * AES-256-GCM, a fresh random 96-bit IV per key. The public key (with the format version) is
 * the additional authenticated data, so a ciphertext copied onto another key's row, or
 * relabelled with another version, fails to decrypt instead of authenticating someone else.
 * Format: "v1:<iv b64>:<tag b64>:<ciphertext b64>".
 */
export function createKeyVault(serverKey: Buffer): KeyVault {
  if (!Buffer.isBuffer(serverKey) || serverKey.length !== 32) throw new Error("server key must be exactly 32 bytes");
  // A private copy: the caller's buffer may be reused or zeroed.
  const key = Buffer.from(serverKey);
  const aad = (publicKey: string) => Buffer.from(`exchange-api-key:${VERSION}:${publicKey}`, "utf8");

  return {
    encrypt(publicKey, privateKey) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(publicKey));
      const ciphertext = Buffer.concat([cipher.update(privateKey, "utf8"), cipher.final()]);
      return [
        VERSION,
        iv.toString("base64"),
        cipher.getAuthTag().toString("base64"),
        ciphertext.toString("base64"),
      ].join(":");
    },
    decrypt(publicKey, stored) {
      const parts = stored.split(":");
      if (parts.length !== 4 || parts[0] !== VERSION) throw new Error("stored API key: unknown format");
      const iv = strictBase64(parts[1]!);
      const tag = strictBase64(parts[2]!);
      const ciphertext = strictBase64(parts[3]!);
      if (iv?.length !== IV_BYTES || tag?.length !== TAG_BYTES || ciphertext === undefined)
        throw new Error("stored API key: malformed");
      const decipher = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(aad(publicKey));
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString("utf8");
      } catch {
        // OpenSSL's message is opaque; say what it means for an operator.
        throw new Error("stored API key: authentication failed (altered, another key's row, or another server key)");
      }
    },
  };
}

/** Buffer.from(.., "base64") skips junk silently; a tampered field must not decode to something. */
function strictBase64(text: string): Buffer | undefined {
  if (!BASE64.test(text)) return undefined;
  const bytes = Buffer.from(text, "base64");
  return bytes.toString("base64") === text ? bytes : undefined;
}

/**
 * The 32-byte server key from configuration: 64 hex characters, or base64/base64url of 32
 * bytes. The error never echoes the value, which may be a near-miss of the real key.
 */
export function parseServerKey(text: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (/^[A-Za-z0-9+/]{43}=?$/.test(trimmed) || /^[A-Za-z0-9_-]{43}=?$/.test(trimmed)) {
    const bytes = Buffer.from(trimmed, trimmed.includes("-") || trimmed.includes("_") ? "base64url" : "base64");
    if (bytes.length === 32) return bytes;
  }
  throw new Error(
    `server key must be 32 bytes written as 64 hex characters or as base64 (44 characters); got ${trimmed.length} characters that are neither`,
  );
}
