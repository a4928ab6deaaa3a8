import { describe, expect, it } from "vitest";
import { priceScaleFormat } from "./CandleChart.tsx";

describe("priceScaleFormat", () => {
  it("steps by the pair's tick and labels to its digits, so close ticks read apart", () => {
    const { base, formatter } = priceScaleFormat(2);
    expect(base).toBe(100);
    // ETH_USDT between 2990.96 and 2991.06: every line read 2,991 at the old 4 significant digits.
    expect([2990.96, 2990.98, 2991, 2991.02, 2991.04].map(formatter)).toEqual([
      "2,990.96",
      "2,990.98",
      "2,991",
      "2,991.02",
      "2,991.04",
    ]);
    expect(formatter(2990.9799999999996)).toBe("2,990.98");
    expect(priceScaleFormat(8).base).toBe(100_000_000);
    expect(priceScaleFormat(4).formatter(0.5013)).toBe("0.5013");
  });
  it("keeps 1e-18 and 4 significant digits without a pair (the token pages' pool prices)", () => {
    const { base, formatter } = priceScaleFormat();
    expect(base).toBe(1e18);
    expect(formatter(2990.98)).toBe("2,990");
  });
});
