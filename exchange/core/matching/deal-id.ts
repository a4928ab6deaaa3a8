import { createHash } from "node:crypto";

// Deal ids are name-based UUIDs (RFC 9562 version 5) of "<pairCode>:<tradeSeq>", so a
// replay after a crash, or a second writer, derives the same id for the same trade
// and the database's unique key turns a double insert into a no-op, not a duplicate.
const DEAL_NAMESPACE = "5c0f7e0e-7c1b-4a53-9b8e-2f4a0f6d7d31";
const namespaceBytes = Buffer.from(DEAL_NAMESPACE.replaceAll("-", ""), "hex");

export function dealId(pairCode: string, tradeSeq: number): string {
  if (!Number.isSafeInteger(tradeSeq) || tradeSeq <= 0)
    throw new RangeError(`tradeSeq must be a positive integer, got ${tradeSeq}`);
  const hash = createHash("sha1").update(namespaceBytes).update(`${pairCode}:${tradeSeq}`, "utf8").digest();
  hash[6] = (hash[6] & 0x0f) | 0x50; // version 5
  hash[8] = (hash[8] & 0x3f) | 0x80; // RFC variant
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
