import { createHash, timingSafeEqual } from "node:crypto";
import { PUBLIC_KEY_HEADER, signRequest } from "../exchange/adapters/auth/index.ts";
import type { Fetcher } from "./http-client.ts";
import type { ApiKeyPair } from "./tools/exchange-writes.ts";

/**
 * How an HTTP session gets the caller's exchange key pair for the write tools (MCP_HTTP_AUTH):
 * - `none`: no credentials over HTTP, the write tools are stdio only;
 * - `api-key`: the client sends its key pair in the `API-PublicKey` and `API-PrivateKey` headers
 *   of every request of the session, over HTTPS (or from loopback). The pair is an HMAC secret
 *   the exchange holds already, so the platform learns nothing it did not know; a session is
 *   bound to the pair it was opened with, so its id alone is worth nothing.
 */
export type McpHttpAuthMode = "none" | "api-key";

export const PRIVATE_KEY_HEADER = "API-PrivateKey";

export type KeyCheck = (keys: ApiKeyPair, signal: AbortSignal) => Promise<"ok" | "refused" | "unavailable">;

/** The pair a request presents: none, both, or `partial` (one header alone is a client's mistake). */
export function presentedKeys(headers: Headers): ApiKeyPair | undefined | "partial" {
  const publicKey = headers.get(PUBLIC_KEY_HEADER) ?? undefined;
  const privateKey = headers.get(PRIVATE_KEY_HEADER) ?? undefined;
  if (publicKey === undefined && privateKey === undefined) return undefined;
  if (publicKey === undefined || privateKey === undefined || publicKey === "" || privateKey === "") return "partial";
  return { publicKey, privateKey };
}

/** What a session remembers of its pair: a digest, compared in constant time. */
export const keyDigest = (keys: ApiKeyPair): Buffer =>
  createHash("sha256").update(`${keys.publicKey}\n${keys.privateKey}`).digest();

export const sameDigest = (a: Buffer | undefined, b: Buffer | undefined): boolean =>
  a === undefined || b === undefined ? a === b : timingSafeEqual(a, b);

/** Secrets travel only over TLS, or never leave the machine. */
export function secureTransport(url: string, forwardedProto: string | undefined, ip: string): boolean {
  if (new URL(url).protocol === "https:" || forwardedProto?.split(",")[0]?.trim() === "https") return true;
  // `ip` is a limiter key (lib/http ipKey): IPv6 by its /64, so ::1 reads as ::/64.
  return ip.startsWith("127.") || ip === "0:0:0:0::/64";
}

/** The pair is the exchange's to judge: one signed GET /api/balances with it. */
export function exchangeKeyCheck(exchange: { fetch: Fetcher; base: string }, now: () => number = Date.now): KeyCheck {
  return async (keys, signal) => {
    const url = `${exchange.base}/api/balances`;
    try {
      const response = await exchange.fetch(url, {
        method: "GET",
        headers: { ...signRequest({ ...keys, method: "GET", url, timestamp: now() }), accept: "application/json" },
        signal,
      });
      await response.body?.cancel();
      if (response.ok) return "ok";
      return response.status === 401 || response.status === 403 ? "refused" : "unavailable";
    } catch {
      return "unavailable";
    }
  };
}
