import { describe, expect, it } from "vitest";
import { buildOrder, type OrderForm } from "./order-input.ts";

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
  it("rounds amount and price down to the pair's digits, as exact strings", () => {
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
