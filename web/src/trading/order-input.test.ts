import { describe, expect, it } from "vitest";
import { buildOrder, type OrderForm, orderTotal, roundingHint } from "./order-input.ts";

const pair = { code: "ETH_USDT", digitsAmount: 4, digitsPrice: 2 };
const form = (fields: Partial<OrderForm>): OrderForm => ({
  side: "buy",
  type: "limit",
  amount: "0.5",
  price: "2000",
  timeInForce: "GTC",
  postOnly: false,
  ...fields,
});

describe("buildOrder", () => {
  it("rounds a buy's amount and price down to the pair's digits, as exact strings", () => {
    expect(buildOrder(form({ amount: "0.123456789", price: "2990.979" }), pair)).toEqual({
      ok: true,
      body: {
        isBid: true,
        currencyPairCode: "ETH_USDT",
        type: "limit",
        amount: "0.1234",
        price: "2990.97",
        timeInForce: "GTC",
      },
    });
  });
  it("rounds a sell's price up (never sells for less than typed), its amount still down", () => {
    const sell = buildOrder(form({ side: "sell", amount: "0.123456789", price: "2990.971" }), pair);
    expect(sell.ok && [sell.body.amount, sell.body.price]).toEqual(["0.1234", "2990.98"]);
    const tiny = buildOrder(form({ side: "sell", price: "0.001" }), pair);
    expect(tiny.ok && tiny.body.price).toBe("0.01");
    const exact = buildOrder(form({ side: "sell", price: "2990.970000" }), pair);
    expect(exact.ok && exact.body.price).toBe("2990.97");
  });
  it("keeps big amounts exact (no float)", () => {
    const result = buildOrder(form({ amount: "123456789012345678.99999", price: "0.019" }), pair);
    expect(result.ok && result.body.amount).toBe("123456789012345678.9999");
    expect(result.ok && result.body.price).toBe("0.01");
  });
  it("sends post-only and the time in force of a limit order; refuses post-only with IOC", () => {
    const sell = buildOrder(form({ side: "sell", postOnly: true }), pair);
    expect(sell.ok && sell.body).toMatchObject({ isBid: false, postOnly: true, timeInForce: "GTC" });
    expect(buildOrder(form({ postOnly: true, timeInForce: "IOC" }), pair).ok).toBe(false);
    expect(buildOrder(form({ timeInForce: "FOK" }), pair)).toMatchObject({ ok: true, body: { timeInForce: "FOK" } });
  });
  it("makes a market order IOC (or FOK) without a price", () => {
    const market = buildOrder(form({ type: "market", price: "", timeInForce: "GTC" }), pair);
    expect(market).toEqual({
      ok: true,
      body: { isBid: true, currencyPairCode: "ETH_USDT", type: "market", amount: "0.5", timeInForce: "IOC" },
    });
    expect(buildOrder(form({ type: "market", timeInForce: "FOK" }), pair)).toMatchObject({
      body: { timeInForce: "FOK" },
    });
  });
  it("refuses what rounds to zero and what is not a decimal", () => {
    expect(buildOrder(form({ amount: "0.00001" }), pair)).toEqual({
      ok: false,
      error: "Amount: at least 0.0001 (4 decimals)",
    });
    expect(buildOrder(form({ price: "0.001" }), pair)).toEqual({
      ok: false,
      error: "Price: at least 0.01 (2 decimals)",
    });
    for (const amount of ["", "-1", "1e3", "abc", "1.2.3"])
      expect(buildOrder(form({ amount }), pair).ok, amount).toBe(false);
    expect(buildOrder(form({ price: "" }), pair).ok).toBe(false);
  });
});

describe("roundingHint", () => {
  it("says the value sent, the pair's digits and the direction when rounding changes the value", () => {
    expect(roundingHint("amount", "1.23456", 4, "buy")).toBe(
      "Sent as 1.2345: this pair takes 4 decimals (rounded down, so never more than typed)",
    );
    expect(roundingHint("price", "1.009", 2, "buy")).toBe(
      "Sent as 1: this pair takes 2 decimals (rounded down, so a buy never pays more than typed)",
    );
    expect(roundingHint("price", " 1.009 ", 2, "sell")).toBe(
      "Sent as 1.01: this pair takes 2 decimals (rounded up, so a sell never sells for less than typed)",
    );
    expect(roundingHint("amount", "7.9", 0, "sell")).toBe(
      "Sent as 7: this pair takes 0 decimals (rounded down, so never more than typed)",
    );
    expect(roundingHint("price", "0.005", 2, "buy")).toBe(
      "Rounds down to 0: this pair takes 2 decimals, at least 0.01",
    );
  });
  it("is exact on values a double cannot hold", () => {
    expect(roundingHint("amount", "123456789012345678.99999", 4, "buy")).toMatch(/^Sent as 123456789012345678\.9999:/);
    expect(roundingHint("amount", "0.30000000000000004", 16, "buy")).toBe(
      "Sent as 0.3: this pair takes 16 decimals (rounded down, so never more than typed)",
    );
  });
  it("says nothing when the value sent is the typed one, or the text is no decimal", () => {
    for (const text of ["1.2345", "1.23450000", "01.5", "3", "", "abc", "1e3", "-1.23456"])
      expect(roundingHint("amount", text, 4, "buy"), text).toBeNull();
  });
});

describe("orderTotal", () => {
  it("is price x amount as sent (both rounded), exact", () => {
    expect(orderTotal(form({ amount: "0.123456789", price: "2990.979" }), pair)).toBe("369.085698");
    expect(orderTotal(form({ amount: "123456789012345678.99999", price: "0.019" }), pair)).toBe(
      "1234567890123456.789999",
    );
  });
  it("is null for a market order or a form that would be refused", () => {
    expect(orderTotal(form({ type: "market", price: "" }), pair)).toBeNull();
    expect(orderTotal(form({ price: "0.001" }), pair)).toBeNull();
    expect(orderTotal(form({ amount: "x" }), pair)).toBeNull();
  });
});
