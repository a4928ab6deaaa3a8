import assert from "node:assert/strict";
import { describe, it } from "vitest";
import fc from "fast-check";
import { ceilDiv, floorDiv, formatUnits, parseUnits } from "./decimal.ts";

const value = <T>(result: { ok: true; value: T } | { ok: false; code: string }) => {
  if (!result.ok) throw new Error(`expected ok, got ${result.code}`);
  return result.value;
};

describe("parseUnits", () => {
  it("reads plain decimals into units of 10^-digits", () => {
    assert.equal(value(parseUnits("123.45", 2)), 12345n);
    assert.equal(value(parseUnits("123.4", 2)), 12340n);
    assert.equal(value(parseUnits("7", 3)), 7000n);
    assert.equal(value(parseUnits("0.000000000000000001", 18)), 1n);
    assert.equal(value(parseUnits("-1.5", 1)), -15n);
    // Past 2^53 with every digit kept, which a float could not do.
    assert.equal(value(parseUnits("1000000000.123456789012345678", 18)), 1_000_000_000_123_456_789_012_345_678n);
  });

  it("refuses what is not a plain decimal", () => {
    for (const text of ["", "1e3", ".5", "5.", "+1", "1,5", " 1", "0x10", "NaN", "Infinity", "1.2.3"]) {
      const result = parseUnits(text, 2);
      assert.ok(!result.ok && result.code === "INVALID_DECIMAL", text);
    }
  });

  it("refuses extra digits unless told how to round, and rounds floor/ceil when told", () => {
    const exact = parseUnits("1.239", 2);
    assert.ok(!exact.ok && exact.code === "TOO_MANY_DECIMALS");
    assert.equal(value(parseUnits("1.230", 2)), 123n, "trailing zeros are not extra precision");
    assert.equal(value(parseUnits("1.239", 2, "down")), 123n);
    assert.equal(value(parseUnits("1.231", 2, "up")), 124n);
    assert.equal(value(parseUnits("-1.231", 2, "down")), -124n);
    assert.equal(value(parseUnits("-1.239", 2, "up")), -123n);
  });
});

describe("formatUnits", () => {
  it("writes units back as decimal text", () => {
    assert.equal(formatUnits(12345n, 2), "123.45");
    assert.equal(formatUnits(5n, 3), "0.005");
    assert.equal(formatUnits(-5n, 3), "-0.005");
    assert.equal(formatUnits(7n, 0), "7");
    assert.equal(formatUnits(1500n, 3, { trimZeros: true }), "1.5");
    assert.equal(formatUnits(2000n, 3, { trimZeros: true }), "2");
  });

  it("round-trips with parseUnits for any integer and any digits", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }),
        fc.integer({ min: 0, max: 36 }),
        (units, digits) => {
          assert.equal(value(parseUnits(formatUnits(units, digits), digits)), units);
          assert.equal(value(parseUnits(formatUnits(units, digits, { trimZeros: true }), digits)), units);
        },
      ),
      { seed: 1, numRuns: 500 },
    );
  });
});

describe("floorDiv and ceilDiv", () => {
  it("round toward minus and plus infinity, where bigint division truncates", () => {
    assert.deepEqual([floorDiv(7n, 2n), ceilDiv(7n, 2n)], [3n, 4n]);
    assert.deepEqual([floorDiv(-7n, 2n), ceilDiv(-7n, 2n)], [-4n, -3n]);
    assert.deepEqual([floorDiv(6n, 2n), ceilDiv(6n, 2n)], [3n, 3n]);
  });
});
