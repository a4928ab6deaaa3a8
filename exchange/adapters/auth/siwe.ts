import { type Hex, isAddress, isAddressEqual, isHex, recoverMessageAddress } from "viem";
import { parseSiweMessage, validateSiweMessage } from "viem/siwe";

/**
 * Sign in with Ethereum (EIP-4361) as the exchange's web account accepts it: viem parses and
 * validates the message's fields, and the signer is recovered from the signature (an externally
 * owned account's; contract wallets, which ERC-1271 would need an RPC call for, are not accepted
 * yet). The message must be for one of the web app's origins, on the platform's chain, fresh
 * (issued within `maxAgeMs`, not expired, not before its `notBefore`) and carry a nonce this
 * server issued and nobody used. Each refusal names its reason; `malformed` is the caller's
 * bad input (400), every other one a failed authentication (401).
 */
export interface SiweExpectations {
  /** Origins (scheme://host[:port]) whose pages may sign in: the message's domain and URI must be one's. */
  readonly origins: readonly string[];
  readonly chainId: number;
  readonly nowMs: number;
  /** Oldest `issuedAt` accepted, ms before now (the nonce's lifetime). */
  readonly maxAgeMs: number;
  /** Whether the server issued this nonce and it is still unused. */
  readonly nonceIsLive: (nonce: string) => boolean;
}

export type SiweRefusal = "malformed" | "domain" | "chain" | "stale" | "nonce" | "signature";

export type SiweVerdict =
  | { readonly ok: true; readonly address: `0x${string}`; readonly nonce: string }
  | { readonly ok: false; readonly reason: SiweRefusal; readonly message: string };

/** Clock skew allowed between the signer's clock and ours for issuedAt. */
const SKEW_MS = 60_000;

const refuse = (reason: SiweRefusal, message: string): SiweVerdict => ({ ok: false, reason, message });

export async function verifySiwe(message: string, signature: string, expect: SiweExpectations): Promise<SiweVerdict> {
  if (!isHex(signature) || signature.length !== 132)
    return refuse("malformed", "signature must be a 65-byte hex string (0x + 130 hex digits)");
  const fields = parseSiweMessage(message);
  if (
    fields.address === undefined ||
    !isAddress(fields.address, { strict: true }) ||
    fields.domain === undefined ||
    fields.uri === undefined ||
    fields.nonce === undefined ||
    fields.chainId === undefined ||
    fields.issuedAt === undefined ||
    fields.version !== "1"
  )
    return refuse(
      "malformed",
      "not an EIP-4361 message with address (checksummed), domain, URI, version 1, chain ID, nonce and issued-at",
    );
  if (
    [fields.issuedAt, fields.expirationTime, fields.notBefore].some((d) => d !== undefined && Number.isNaN(d.getTime()))
  )
    return refuse("malformed", "issued-at, expiration time and not-before must be RFC 3339 times");
  const origin = expect.origins.find((o) => new URL(o).host === fields.domain && sameOrigin(fields.uri!, o));
  if (origin === undefined)
    return refuse("domain", `the message is for ${fields.uri} on ${fields.domain}, not for this exchange's web app`);
  if (fields.chainId !== expect.chainId)
    return refuse("chain", `the message is for chain ${fields.chainId}; the platform runs on chain ${expect.chainId}`);
  const issuedAt = fields.issuedAt.getTime();
  if (issuedAt > expect.nowMs + SKEW_MS || issuedAt < expect.nowMs - expect.maxAgeMs)
    return refuse("stale", "the message was not issued within the last few minutes: sign in again");
  if (!validateSiweMessage({ message: fields, time: new Date(expect.nowMs) }))
    return refuse("stale", "the message has expired or is not valid yet");
  if (!expect.nonceIsLive(fields.nonce))
    return refuse("nonce", "unknown or already used nonce: ask GET /api/auth/nonce for a new one");
  let signer: `0x${string}`;
  try {
    signer = await recoverMessageAddress({ message, signature: signature as Hex });
  } catch {
    return refuse("signature", "the signature does not recover to an address");
  }
  if (!isAddressEqual(signer, fields.address))
    return refuse("signature", "the signature is not the message's address's");
  return { ok: true, address: fields.address, nonce: fields.nonce };
}

function sameOrigin(uri: string, origin: string): boolean {
  try {
    return new URL(uri).origin === new URL(origin).origin;
  } catch {
    return false;
  }
}
