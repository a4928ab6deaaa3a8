import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from "node:crypto";

// Request signing as the service specification defines it, plus our optional timestamp.
// Both the client helpers (tests, CLI, market-making bot) and the server use this one file,
// so the two sides cannot drift apart.

export const PUBLIC_KEY_HEADER = "API-PublicKey";
export const SIGNATURE_HEADER = "API-Signature";
export const TIMESTAMP_HEADER = "API-Timestamp";

/**
 * Only lowercase hex is accepted: the spec says the signature is encoded as lowercase hex, and
 * a single canonical form means there is exactly one valid header value per request.
 */
const SIGNATURE_FORMAT = /^[0-9a-f]{64}$/;

export interface SignatureParts {
  readonly publicKey: string;
  /** The full URL as sent: scheme, host, port, path and query string. */
  readonly url: string;
  /** The exact body text transmitted; "" for GET and DELETE. */
  readonly body: string;
  /** The API-Timestamp header value, when the request carries one. */
  readonly timestamp?: string | number | undefined;
}

/**
 * publicKey + url + body (+ timestamp), no separators. The spec fixes the first three; the
 * timestamp suffix is our replay-protection extension and is absent when the header is.
 */
export function signatureText(parts: SignatureParts): string {
  const suffix = parts.timestamp === undefined ? "" : String(parts.timestamp);
  return parts.publicKey + parts.url + parts.body + suffix;
}

/** Lowercase hex HMAC-SHA256 of the text's UTF-8 bytes, keyed with the private key's UTF-8 bytes. */
export function sign(privateKey: string, text: string): string {
  return createHmac("sha256", hmacKey(privateKey)).update(text, "utf8").digest("hex");
}

// Building the key object is most of an HMAC's cost on short texts; a server verifies the same
// few keys over and over, so they are kept (bounded: the oldest goes first).
const KEY_CACHE_LIMIT = 10_000;
const keyObjects = new Map<string, KeyObject>();

function hmacKey(privateKey: string): KeyObject {
  let key = keyObjects.get(privateKey);
  if (key === undefined) {
    key = createSecretKey(Buffer.from(privateKey, "utf8"));
    if (keyObjects.size >= KEY_CACHE_LIMIT) keyObjects.delete(keyObjects.keys().next().value!);
    keyObjects.set(privateKey, key);
  }
  return key;
}

export function isWellFormedSignature(signatureHex: string): boolean {
  return SIGNATURE_FORMAT.test(signatureHex);
}

/**
 * Constant-time check of a presented signature. Malformed input is a plain `false` (never a
 * throw) so that no client-controlled header can turn into a 500.
 */
export function verifySignature(privateKey: string, text: string, signatureHex: string): boolean {
  if (typeof signatureHex !== "string" || !isWellFormedSignature(signatureHex)) return false;
  const expected = createHmac("sha256", hmacKey(privateKey)).update(text, "utf8").digest();
  return timingSafeEqual(expected, Buffer.from(signatureHex, "hex"));
}

/** GET, HEAD and DELETE are signed with an empty body whatever bytes travel with them. */
export function methodCarriesBody(method: string): boolean {
  const upper = method.toUpperCase();
  return upper !== "GET" && upper !== "HEAD" && upper !== "DELETE";
}

export interface SignRequestInput {
  readonly publicKey: string;
  readonly privateKey: string;
  readonly method: string;
  readonly url: string;
  /** The exact text that will be sent (e.g. JSON.stringify(payload)); must be sent unchanged. */
  readonly body?: string | undefined;
  /** Epoch ms; adds API-Timestamp (replay protection). */
  readonly timestamp?: number | undefined;
}

/**
 * The headers a client sends. The URL is signed in the form fetch transmits it (WHATWG
 * serialization, no fragment), which is also how the server rebuilds it, so a URL written as
 * "http://Host:80/a" still verifies.
 */
export function signRequest(input: SignRequestInput): Record<string, string> {
  const body = input.body ?? "";
  if (body !== "" && !methodCarriesBody(input.method)) {
    // The server would ignore these bytes; refusing here beats sending an unsigned payload.
    throw new TypeError(`${input.method.toUpperCase()} requests are signed with an empty body; do not send one`);
  }
  const timestamp = input.timestamp;
  if (timestamp !== undefined && !(Number.isSafeInteger(timestamp) && timestamp >= 0)) {
    throw new TypeError("timestamp must be a non-negative integer of epoch milliseconds");
  }
  const url = new URL(input.url);
  url.hash = "";
  const text = signatureText({ publicKey: input.publicKey, url: url.href, body, timestamp });
  const headers: Record<string, string> = {
    [PUBLIC_KEY_HEADER]: input.publicKey,
    [SIGNATURE_HEADER]: sign(input.privateKey, text),
  };
  if (timestamp !== undefined) headers[TIMESTAMP_HEADER] = String(timestamp);
  return headers;
}
