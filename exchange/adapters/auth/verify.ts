import type { ReplayGuard } from "./replay.ts";
import { isWellFormedSignature, methodCarriesBody, signatureText, verifySignature } from "./signing.ts";

export const DEFAULT_TIMESTAMP_WINDOW_MS = 30_000;

/**
 * How far ahead of server time an API-Timestamp may be (Binance's recvWindow rule): a past
 * timestamp may lag by the window, a future one only by this much. It bounds what a restart must
 * refuse: the previous process accepted nothing later than its last moment + this.
 */
export const DEFAULT_MAX_FUTURE_MS = 1_000;

/** Public keys we issue are ~46 characters; the bound keeps junk away from the key store. */
const MAX_PUBLIC_KEY_LENGTH = 256;

/** Canonical non-negative integer text only: "1e3", "+1", "01" and " 1" are refused. */
const TIMESTAMP_FORMAT = /^(0|[1-9][0-9]{0,15})$/;

export interface ResolvedKey {
  readonly privateKey: string;
  readonly userId: string;
}

/** undefined means unknown or revoked. */
export type KeyResolver = (publicKey: string) => ResolvedKey | undefined | Promise<ResolvedKey | undefined>;

export interface SignedRequestHeaders {
  readonly publicKey?: string | undefined;
  readonly signature?: string | undefined;
  readonly timestamp?: string | undefined;
}

export interface VerifySignedRequestInput {
  readonly method: string;
  /** The full URL the client signed (see signedRequest's requestUrl behind a proxy). */
  readonly url: string;
  /** The body text exactly as received; ignored (signed as "") for GET, HEAD and DELETE. */
  readonly body: string;
  readonly headers: SignedRequestHeaders;
  readonly resolveKey: KeyResolver;
  /** Epoch ms. */
  readonly now: () => number;
  readonly windowMs?: number | undefined;
  /** Most ms an API-Timestamp may be ahead of `now`; default DEFAULT_MAX_FUTURE_MS. */
  readonly maxFutureMs?: number | undefined;
  readonly requireTimestamp?: boolean | undefined;
  /** Accepts each timestamped signature once; without it a valid request verifies every time. */
  readonly replay?: ReplayGuard | undefined;
}

export type VerifySignedRequestResult =
  | { readonly ok: true; readonly userId: string; readonly publicKey: string }
  /** retryAfterSeconds: not the client's fault but a full replay cache (answer 429, not 401). */
  | { readonly ok: false; readonly reason: string; readonly retryAfterSeconds?: number };

const fail = (reason: string): VerifySignedRequestResult => ({ ok: false, reason });

/**
 * Decides whether a request is signed by a live key. Every client-caused failure is a value
 * with a reason fit to return to the client: it names what is wrong and never the expected
 * signature. Errors thrown by resolveKey (a broken store) propagate: they are server faults.
 *
 * Cheap format and clock checks run before the key lookup so junk never reaches the store.
 */
export async function verifySignedRequest(input: VerifySignedRequestInput): Promise<VerifySignedRequestResult> {
  const { publicKey, signature, timestamp } = input.headers;
  const windowMs = input.windowMs ?? DEFAULT_TIMESTAMP_WINDOW_MS;
  const maxFutureMs = input.maxFutureMs ?? DEFAULT_MAX_FUTURE_MS;

  if (publicKey === undefined || publicKey === "") return fail("Missing API-PublicKey header");
  if (signature === undefined || signature === "") return fail("Missing API-Signature header");
  if (!isWellFormedSignature(signature)) return fail("Malformed API-Signature: expected 64 lowercase hex characters");
  if (publicKey.length > MAX_PUBLIC_KEY_LENGTH) return fail("Unknown or revoked API key");

  if (timestamp === undefined || timestamp === "") {
    if (input.requireTimestamp) return fail("Missing API-Timestamp header (required by this server)");
  } else {
    if (!TIMESTAMP_FORMAT.test(timestamp)) return fail("Malformed API-Timestamp: expected integer epoch milliseconds");
    const now = input.now();
    const at = Number(timestamp);
    // The server's clock is no secret and lets a client diagnose its skew.
    if (now - at > windowMs) return fail(`Stale API-Timestamp: more than ${windowMs} ms behind server time ${now}`);
    if (at - now > maxFutureMs) {
      return fail(
        `API-Timestamp ${timestamp} is ${at - now} ms ahead of server time ${now}; at most ${maxFutureMs} ms ahead is accepted (check the client's clock)`,
      );
    }
    // The previous process may have accepted any timestamp up to its last moment + maxFutureMs,
    // and a restart forgot which: everything below this process's start + maxFutureMs is refused.
    if (input.replay !== undefined && at < input.replay.startedAt + maxFutureMs) {
      const from = input.replay.startedAt + maxFutureMs;
      return fail(
        `API-Timestamp ${timestamp} is before this server started (timestamps from ${from} are accepted); sign the request again with the current time`,
      );
    }
  }

  const key = await input.resolveKey(publicKey);
  if (key === undefined) return fail("Unknown or revoked API key");

  const body = methodCarriesBody(input.method) ? input.body : "";
  const text = signatureText({ publicKey, url: input.url, body, timestamp: timestamp === "" ? undefined : timestamp });
  if (!verifySignature(key.privateKey, text, signature)) return fail("Invalid API-Signature for this request");
  // Claimed only once verified, so no one but the key's owner can put entries in the cache.
  if (input.replay !== undefined && timestamp !== undefined && timestamp !== "") {
    const now = input.now();
    const claim = input.replay.claim(signature, Number(timestamp) + windowMs, now);
    if (claim === "replay")
      return fail(
        `Replayed request: this signature (API-Timestamp ${timestamp}) was already used; sign each request anew`,
      );
    if (claim === "full") {
      return {
        ok: false,
        reason: "Too many timestamped requests in flight to remember them all; retry shortly",
        retryAfterSeconds: input.replay.retryAfterSeconds(now),
      };
    }
  }
  return { ok: true, userId: key.userId, publicKey };
}
