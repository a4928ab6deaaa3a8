import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { BURN_ADDRESS, isHolder } from "./holders.ts";

describe("isHolder", () => {
  const pool = "0x00000000000000000000000000000000000000aa";
  const alice = "0x00000000000000000000000000000000000000a1";

  it("counts accounts, not the token's pool, the burn address or the zero address", () => {
    assert.equal(isHolder(alice, pool), true);
    assert.equal(isHolder(pool, pool), false);
    assert.equal(isHolder(BURN_ADDRESS, pool), false);
    assert.equal(isHolder("0x0000000000000000000000000000000000000000", pool), false);
  });

  it("compares lower-case addresses, as the indexer stores them", () => {
    assert.equal(BURN_ADDRESS, "0x000000000000000000000000000000000000dEaD".toLowerCase());
  });

  it("before the pool is known, only the fixed non-holders are excluded", () => {
    assert.equal(isHolder(pool, undefined), true);
    assert.equal(isHolder(BURN_ADDRESS, undefined), false);
  });
});
