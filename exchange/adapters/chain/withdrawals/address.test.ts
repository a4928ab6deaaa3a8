import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { DomainError } from "../../../core/result.ts";
import { parseWithdrawalAddress, refuseOwnAddress } from "./address.ts";

// Hardhat's account #1, checksummed as EIP-55 writes it.
const CHECKSUMMED = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof DomainError);
    return { code: error.code, message: error.message };
  }
  assert.fail("not refused");
};

describe("parseWithdrawalAddress", () => {
  it("takes a checksummed, an all lower-case and an all upper-case address, lower-casing it", () => {
    const lower = CHECKSUMMED.toLowerCase();
    assert.equal(parseWithdrawalAddress(CHECKSUMMED), lower);
    assert.equal(parseWithdrawalAddress(lower), lower);
    assert.equal(parseWithdrawalAddress(`0x${CHECKSUMMED.slice(2).toUpperCase()}`), lower);
  });

  it("refuses a malformed address naming the parameter", () => {
    for (const text of [
      "0xabc",
      "70997970c51812dc3a010c7d01b50e0d17dc79c8",
      `${CHECKSUMMED}0`,
      "0x70997970c51812dc3a010c7d01b50e0d17dc79cg",
    ]) {
      const r = refusal(() => parseWithdrawalAddress(text));
      assert.equal(r.code, "INVALID_PARAM");
      assert.match(r.message, /^address: must be 0x/);
    }
  });

  it("refuses a mixed-case address whose EIP-55 checksum fails (one letter's case flipped)", () => {
    const flipped = CHECKSUMMED.replace("C51812", "c51812");
    const r = refusal(() => parseWithdrawalAddress(flipped));
    assert.equal(r.code, "INVALID_PARAM");
    assert.match(r.message, /^address: fails its EIP-55 checksum/);
  });
});

describe("refuseOwnAddress", () => {
  it("refuses what `own` names and lets other addresses through", () => {
    const own = (a: string) => (a === "0x00000000000000000000000000000000000000aa" ? "the hot wallet" : undefined);
    const r = refusal(() => refuseOwnAddress("0x00000000000000000000000000000000000000aa", own));
    assert.equal(r.code, "INVALID_PARAM");
    assert.match(r.message, /the hot wallet/);
    refuseOwnAddress("0x00000000000000000000000000000000000000bb", own);
  });
});
