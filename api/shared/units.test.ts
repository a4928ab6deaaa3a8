import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { formatAmount, formatFixed, pairDecimalsOf, poolPrice, wholeUnitsNumber } from "./units.ts";

describe("formatAmount", () => {
  it("gives whole units exactly, shortest form", () => {
    assert.equal(formatAmount(1_500_000n, 6), "1.5");
    assert.equal(formatAmount(0n, 18), "0");
    assert.equal(formatAmount(1_000_000_000n * 10n ** 18n, 18), "1000000000");
    assert.equal(formatAmount(1n, 18), "0.000000000000000001");
    // Beyond any float's precision.
    assert.equal(formatAmount(123_456_789_012_345_678_901_234_567_890n, 18), "123456789012.34567890123456789");
  });
});

describe("formatFixed", () => {
  it("always shows the given fractional digits", () => {
    assert.equal(formatFixed(1_500_000n, 6), "1.500000");
    assert.equal(formatFixed(5n, 6), "0.000005");
    assert.equal(formatFixed(0n, 3), "0.000");
    assert.equal(formatFixed(-25n, 2), "-0.25");
    assert.equal(formatFixed(42n, 0), "42");
  });
});

describe("poolPrice", () => {
  it("is (pair + virtual) / token in whole units, 18 fractional digits, truncated", () => {
    // 10,000 stable (6 decimals, all virtual) against 800,000,000 tokens: 0.0000125 per token.
    assert.equal(poolPrice(800_000_000n * 10n ** 18n, 0n, 10_000n * 10n ** 6n, 6), "0.000012500000000000");
    // 3 wrapped native against 2 tokens (both 18 decimals): 1.5.
    assert.equal(poolPrice(2n * 10n ** 18n, 10n ** 18n, 2n * 10n ** 18n, 18), "1.500000000000000000");
    // 1/3 is truncated, not rounded.
    assert.equal(poolPrice(3n * 10n ** 18n, 0n, 10n ** 6n, 6), "0.333333333333333333");
  });

  it("is null for a pool without tokens", () => {
    assert.equal(poolPrice(0n, 1n, 1n, 6), null);
  });
});

describe("pairDecimalsOf", () => {
  it("knows both pair assets and refuses others", () => {
    assert.equal(pairDecimalsOf("STABLE"), 6);
    assert.equal(pairDecimalsOf("WRAPPED_NATIVE"), 18);
    assert.throws(() => pairDecimalsOf("DOGE"));
  });
});

describe("wholeUnitsNumber", () => {
  it("is the number nearest the exact whole-unit amount (18 decimals by default)", () => {
    assert.equal(wholeUnitsNumber(0n), 0);
    assert.equal(wholeUnitsNumber(1_500n * 10n ** 15n), 1.5);
    assert.equal(wholeUnitsNumber(40_000_000n * 10n ** 18n), 40_000_000);
    assert.equal(wholeUnitsNumber(1n), 1e-18);
    assert.equal(wholeUnitsNumber(2_500_000n, 6), 2.5);
    // Beyond a double's precision: the double nearest the exact amount (2^53 + 1 whole tokens
    // is a tie, rounded to even), where Number(value) / 1e18 rounds twice and lands above.
    const overSafe = (2n ** 53n + 1n) * 10n ** 18n;
    assert.equal(wholeUnitsNumber(overSafe), 2 ** 53);
    assert.notEqual(Number(overSafe) / 1e18, 2 ** 53);
  });
});
