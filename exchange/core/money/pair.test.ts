import assert from "node:assert/strict";
import { describe, it } from "vitest";
import {
  baseUnitsOfLots,
  definePair,
  formatAmount,
  formatPrice,
  parseAmount,
  parseCurrencyUnits,
  parsePrice,
  quoteUnitsOf,
  tickLotsOfQuoteUnits,
  type PairSettings,
  type PairSpec,
} from "./pair.ts";
import { MAX_STORED_UNITS } from "./decimal.ts";

const settings: PairSettings = {
  code: "ALPHA_USDT",
  base: { code: "ALPHA", decimals: 18 },
  quote: { code: "USDT", decimals: 6 },
  digitsPrice: 4,
  digitsAmount: 2,
  minQuoteAmount: "5",
};

function pair(overrides: Partial<PairSettings> = {}): PairSpec {
  const result = definePair({ ...settings, ...overrides });
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

describe("definePair", () => {
  it("accepts settings whose fills convert exactly, with minQuoteAmount in quote units", () => {
    assert.equal(pair().minQuoteAmount, 5_000_000n);
    assert.equal(pair({ minQuoteAmount: null }).minQuoteAmount, null);
  });

  it("refuses settings that would make fills round, naming the problem", () => {
    const cases: [Partial<PairSettings>, RegExp][] = [
      [{ digitsPrice: 5 }, /digitsPrice \+ digitsAmount \(7\) is finer than USDT's 6 decimals/],
      [{ digitsAmount: 3, base: { code: "ALPHA", decimals: 2 } }, /digitsAmount 3 is finer than ALPHA's 2 decimals/],
      [{ code: "ALPHA-USDT" }, /is not ALPHA_USDT/],
      [{ digitsPrice: -1 }, /digitsPrice must be an integer/],
      [{ digitsAmount: 1.5 }, /digitsAmount must be an integer/],
      [{ minQuoteAmount: "0.0000001" }, /minQuoteAmount/],
    ];
    for (const [overrides, message] of cases) {
      const result = definePair({ ...settings, ...overrides });
      assert.ok(!result.ok && result.code === "INVALID_PAIR", JSON.stringify(overrides));
      assert.match(result.message, message);
    }
  });
});

describe("pair conversions", () => {
  const alpha = pair();

  it("reads prices to ticks and amounts to lots, refusing what is off the grid or unsafe", () => {
    assert.deepEqual(parsePrice("1.2345", alpha), { ok: true, value: 12345 });
    assert.deepEqual(parseAmount("10.5", alpha), { ok: true, value: 1050 });
    assert.equal(parsePrice("1.23456", alpha).ok, false);
    assert.deepEqual(parsePrice("1.23456", alpha, "down"), { ok: true, value: 12345 });
    const tooLarge = parseAmount("90071992547409.92", alpha);
    assert.ok(!tooLarge.ok && tooLarge.code === "OUT_OF_RANGE");
    assert.deepEqual(parseAmount("90071992547409.91", alpha), { ok: true, value: Number.MAX_SAFE_INTEGER });
    assert.equal(parseAmount("-1", alpha).ok, false);
  });

  it("formats ticks and lots back", () => {
    assert.equal(formatPrice(12345, alpha), "1.2345");
    assert.equal(formatAmount(1050, alpha), "10.50");
  });

  it("converts fills to base and quote units exactly", () => {
    // 10.50 ALPHA at 1.2345 USDT = 12.962250 USDT, 10.5 x 10^18 ALPHA units.
    assert.equal(baseUnitsOfLots(1050, alpha), 10_500_000_000_000_000_000n);
    assert.equal(quoteUnitsOf(12345, 1050, alpha), 12_962_250n);
    // Products past 2^53 stay exact.
    assert.equal(
      quoteUnitsOf(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, alpha),
      BigInt(Number.MAX_SAFE_INTEGER) ** 2n,
    );
  });

  it("turns a quote amount into a tick-lot budget rounded down", () => {
    const coarse = pair({ digitsPrice: 2, digitsAmount: 2 }); // 100 quote units per tick-lot
    assert.equal(tickLotsOfQuoteUnits(12_345n, coarse), 123n);
    assert.equal(quoteUnitsOf(1, 123, coarse) <= 12_345n, true);
    assert.equal(tickLotsOfQuoteUnits(12_345n, alpha), 12_345n);
  });
});

describe("parseCurrencyUnits", () => {
  it("refuses amounts a numeric(78, 0) column cannot store, at any number of decimals", () => {
    const usdt = { code: "USDT", decimals: 6 };
    const max = parseCurrencyUnits(`${"9".repeat(72)}.999999`, usdt);
    assert.ok(max.ok && max.value === MAX_STORED_UNITS);
    const over = parseCurrencyUnits(`1${"0".repeat(72)}`, usdt);
    assert.ok(!over.ok && over.code === "OUT_OF_RANGE", "10^78 units");
    const e80 = parseCurrencyUnits(`1${"0".repeat(80)}`, { code: "X", decimals: 0 });
    assert.ok(!e80.ok && e80.code === "OUT_OF_RANGE", "10^80 units");
  });
});
