import { describe, expect, it } from "vitest";
import {
  formatAmount,
  formatCompact,
  formatPrice,
  formatShare,
  formatUnitsAmount,
  parseAmount,
  parseSlippageBps,
  percentChange,
  relativeTime,
} from "./format.ts";

describe("formatPrice", () => {
  it("writes tiny prices with the run of zeros as a subscript count", () => {
    expect(formatPrice("0.000000123")).toBe("0.0₆123");
    expect(formatPrice("0.000000000000123456789")).toBe("0.0₁₂1234");
    expect(formatPrice("0.00001")).toBe("0.0₄1");
  });
  it("keeps up to three leading zeros written out", () => {
    expect(formatPrice("0.000123456")).toBe("0.0001234");
    expect(formatPrice("0.0123")).toBe("0.0123");
  });
  it("keeps 4 significant digits above 1, 2 decimals at least below 1,000, truncating", () => {
    expect(formatPrice("2000.56789")).toBe("2,000");
    expect(formatPrice("12.34999")).toBe("12.34");
    expect(formatPrice("1.999999")).toBe("1.999");
    expect(formatPrice("0")).toBe("0");
    expect(formatPrice("0.000000000000000000")).toBe("0");
  });
});

describe("formatAmount", () => {
  it("groups thousands and truncates the fraction without rounding up", () => {
    expect(formatAmount("1234567.891")).toBe("1,234,567.891");
    expect(formatAmount("1234567.899999", 2)).toBe("1,234,567.89");
    expect(formatAmount("1000000000")).toBe("1,000,000,000");
    expect(formatAmount("5.000")).toBe("5");
  });
  it("says an amount is non-zero even when its digits are beyond what is shown", () => {
    expect(formatAmount("0.0000001", 4)).toBe("<0.0001");
    expect(formatAmount("0", 4)).toBe("0");
  });
  it("formats base units exactly, beyond a double's precision", () => {
    expect(formatUnitsAmount(123456789012345678901234567n, 18, 18)).toBe("123,456,789.012345678901234567");
  });
});

describe("formatCompact", () => {
  it("shortens large figures with a suffix, truncated", () => {
    expect(formatCompact("1234567.89")).toBe("1.23M");
    expect(formatCompact("45678")).toBe("45.67K");
    expect(formatCompact("9999.5")).toBe("9,999.5");
    expect(formatCompact("1000000000000")).toBe("1T");
  });
});

describe("parseAmount", () => {
  it("parses exactly into base units", () => {
    expect(parseAmount("1.5", 18)).toEqual({ ok: true, value: 1_500_000_000_000_000_000n });
    expect(parseAmount("0.000001", 6)).toEqual({ ok: true, value: 1n });
    expect(parseAmount("1,000", 6)).toEqual({ ok: true, value: 1_000_000_000n });
    expect(parseAmount(".5", 6)).toEqual({ ok: true, value: 500_000n });
  });
  it("refuses what is not an amount, naming why", () => {
    expect(parseAmount("", 18)).toEqual({ ok: false, error: "Enter an amount" });
    expect(parseAmount("abc", 18).ok).toBe(false);
    expect(parseAmount("1e5", 18).ok).toBe(false);
    expect(parseAmount("-1", 18).ok).toBe(false);
    expect(parseAmount("0.0000001", 6)).toEqual({ ok: false, error: "At most 6 decimal places" });
    expect(parseAmount("0", 6)).toEqual({ ok: false, error: "Enter an amount above zero" });
  });
});

describe("parseSlippageBps", () => {
  it("reads percent as basis points", () => {
    expect(parseSlippageBps("0.5")).toEqual({ ok: true, bps: 50n });
    expect(parseSlippageBps("1")).toEqual({ ok: true, bps: 100n });
    expect(parseSlippageBps("0.01")).toEqual({ ok: true, bps: 1n });
  });
  it("refuses more than 50% or finer than 0.01%", () => {
    expect(parseSlippageBps("51").ok).toBe(false);
    expect(parseSlippageBps("0.005").ok).toBe(false);
  });
});

describe("percentChange and formatShare", () => {
  it("computes exact signed changes", () => {
    expect(percentChange("100", "112.345")).toBe("+12.34%");
    expect(percentChange("0.000000123", "0.000000061")).toBe("-50.4%");
    expect(percentChange("2", "2")).toBe("0%");
    expect(percentChange("0", "1")).toBeNull();
  });
  it("writes shares as percentages", () => {
    expect(formatShare("0.123456")).toBe("12.34%");
    expect(formatShare("1")).toBe("100%");
  });
});

describe("relativeTime", () => {
  const now = 1_800_000_000_000;
  it("reads naturally", () => {
    expect(relativeTime(now / 1000 - 2, now)).toBe("just now");
    expect(relativeTime(now / 1000 - 42, now)).toBe("42 s ago");
    expect(relativeTime(now / 1000 - 180, now)).toBe("3 min ago");
    expect(relativeTime(now / 1000 - 7200, now)).toBe("2 h ago");
    expect(relativeTime(now / 1000 - 86_400, now)).toBe("1 day ago");
    expect(relativeTime(now / 1000 - 5 * 86_400, now)).toBe("5 days ago");
    expect(relativeTime(now / 1000 + 300, now)).toBe("in 5 min");
  });
});
