import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { applyRateRoundingUp, parseRate } from "./rate.ts";

describe("parseRate", () => {
  it("keeps the fraction exactly as written", () => {
    assert.deepEqual(parseRate("0.001"), { ok: true, value: { numerator: 1n, scale: 3 } });
    assert.deepEqual(parseRate("0.0025"), { ok: true, value: { numerator: 25n, scale: 4 } });
    assert.deepEqual(parseRate("0"), { ok: true, value: { numerator: 0n, scale: 0 } });
    assert.deepEqual(parseRate("1"), { ok: true, value: { numerator: 1n, scale: 0 } });
  });

  it("refuses rates outside [0, 1] and non-decimals", () => {
    for (const text of ["1.01", "-0.1", "1e-3", "", "abc"]) {
      const result = parseRate(text);
      assert.ok(!result.ok && result.code === "INVALID_RATE", text);
    }
  });
});

describe("applyRateRoundingUp", () => {
  it("rounds any fraction of a unit up, in the exchange's favour", () => {
    const rate = { numerator: 1n, scale: 3 }; // 0.1%
    assert.equal(applyRateRoundingUp(1000n, rate), 1n);
    assert.equal(applyRateRoundingUp(1001n, rate), 2n);
    assert.equal(applyRateRoundingUp(1n, rate), 1n);
    assert.equal(applyRateRoundingUp(0n, rate), 0n);
    assert.equal(applyRateRoundingUp(999n, { numerator: 0n, scale: 0 }), 0n);
  });
});
