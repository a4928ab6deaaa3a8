import { describe, expect, it } from "vitest";
import { checkAmount, percentText, roundDown, withdrawalCommission, withdrawalFee } from "./amounts.ts";
import type { Commission } from "./types.ts";

const commission = (fields: Partial<Commission>): Commission => ({
  commissionId: "c",
  currencyCode: null,
  currencyPairCode: null,
  percent: "0",
  minimum: "0",
  commissionCurrencyCode: null,
  commissionTypeCode: "2",
  ...fields,
});

describe("checkAmount", () => {
  it("takes a positive amount within the digits, normalized", () => {
    expect(checkAmount(" 01.50 ", 6)).toEqual({ ok: true, value: "1.5" });
    expect(checkAmount("0.000001", 6)).toEqual({ ok: true, value: "0.000001" });
    expect(checkAmount("123456789012345678.123456789012345678", 18)).toEqual({
      ok: true,
      value: "123456789012345678.123456789012345678",
    });
  });
  it("refuses more digits than allowed, zero, signs, exponents and empty text", () => {
    expect(checkAmount("0.0000001", 6)).toEqual({ ok: false, error: "At most 6 decimals" });
    expect(checkAmount("1.1", 0).ok).toBe(false);
    expect(checkAmount("0", 6)).toEqual({ ok: false, error: "Must be more than 0" });
    for (const bad of ["-1", "1e3", "1,5", ".5", "", "abc"]) expect(checkAmount(bad, 6).ok, bad).toBe(false);
  });
  it("lets trailing zeros past the digits through", () => {
    expect(checkAmount("1.2300000", 2)).toEqual({ ok: true, value: "1.23" });
  });
});

describe("roundDown", () => {
  it("truncates to the digits, never up", () => {
    expect(roundDown("1.999", 2)).toBe("1.99");
    expect(roundDown("0.009", 2)).toBe("0");
    expect(roundDown("2990.975", 2)).toBe("2990.97");
    expect(roundDown("5", 4)).toBe("5");
  });
});

describe("percentText", () => {
  it("writes a fraction as an exact percentage", () => {
    expect(percentText("0.001")).toBe("0.1%");
    expect(percentText("0")).toBe("0%");
    expect(percentText("0.0000123")).toBe("0.00123%");
  });
});

describe("withdrawal fee", () => {
  const rows = [
    commission({ commissionTypeCode: "1", percent: "0.5" }),
    commission({ percent: "0.001" }),
    commission({ currencyCode: "USDT", percent: "0.002", minimum: "1", commissionCurrencyCode: "USDT" }),
  ];
  it("picks type 2 for the currency over the default row", () => {
    expect(withdrawalCommission(rows, "USDT")?.percent).toBe("0.002");
    expect(withdrawalCommission(rows, "ETH")?.percent).toBe("0.001");
    expect(withdrawalCommission([rows[0]!], "ETH")).toBeUndefined();
  });
  it("is amount x percent rounded up, at least the minimum, at most the amount", () => {
    const usdt = withdrawalCommission(rows, "USDT");
    expect(withdrawalFee("1000", usdt, "USDT", 6)).toBe("2");
    expect(withdrawalFee("10", usdt, "USDT", 6)).toBe("1");
    expect(withdrawalFee("0.5", usdt, "USDT", 6)).toBe("0.5");
    expect(withdrawalFee("0.000001", withdrawalCommission(rows, "ETH"), "ETH", 6)).toBe("0.000001");
    expect(withdrawalFee("3", undefined, "ETH", 18)).toBe("0");
  });
});
