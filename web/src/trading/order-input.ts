import { roundDown } from "../account/amounts.ts";

/**
 * The order form's fields as the body of POST /api/orders: amount and price rounded DOWN to the
 * pair's digitsAmount and digitsPrice (the exchange refuses finer ones, it never rounds), exact
 * decimal strings, and only the options that fit the order type.
 */

export interface OrderForm {
  readonly side: "buy" | "sell";
  readonly type: "limit" | "market";
  readonly amount: string;
  readonly price: string;
  readonly timeInForce: "GTC" | "IOC" | "FOK";
  readonly postOnly: boolean;
}

export interface PairDigits {
  readonly code: string;
  readonly digitsAmount: number;
  readonly digitsPrice: number;
}

export interface OrderBody {
  isBid: boolean;
  currencyPairCode: string;
  type: "limit" | "market";
  amount: string;
  price?: string;
  timeInForce: "GTC" | "IOC" | "FOK";
  postOnly?: boolean;
}

const DECIMAL = /^\d+(\.\d+)?$/;

export function buildOrder(
  form: OrderForm,
  pair: PairDigits,
): { ok: true; body: OrderBody } | { ok: false; error: string } {
  const amountText = form.amount.trim();
  if (!DECIMAL.test(amountText)) return { ok: false, error: "Amount: digits and one decimal point only" };
  const amount = roundDown(amountText, pair.digitsAmount);
  if (amount === "0")
    return { ok: false, error: `Amount: at least ${step(pair.digitsAmount)} (${pair.digitsAmount} decimals)` };
  if (form.type === "market") {
    // A market order takes what the book has now: it never rests, so it is IOC or FOK.
    const timeInForce = form.timeInForce === "FOK" ? "FOK" : "IOC";
    return {
      ok: true,
      body: { isBid: form.side === "buy", currencyPairCode: pair.code, type: "market", amount, timeInForce },
    };
  }
  const priceText = form.price.trim();
  if (!DECIMAL.test(priceText)) return { ok: false, error: "Price: digits and one decimal point only" };
  const price = roundDown(priceText, pair.digitsPrice);
  if (price === "0")
    return { ok: false, error: `Price: at least ${step(pair.digitsPrice)} (${pair.digitsPrice} decimals)` };
  if (form.postOnly && form.timeInForce !== "GTC")
    return { ok: false, error: "Post-only orders rest on the book: time in force must be GTC" };
  return {
    ok: true,
    body: {
      isBid: form.side === "buy",
      currencyPairCode: pair.code,
      type: "limit",
      amount,
      price,
      timeInForce: form.timeInForce,
      ...(form.postOnly ? { postOnly: true } : {}),
    },
  };
}

/** The smallest amount with `digits` decimals: 2 -> "0.01". */
function step(digits: number): string {
  return digits === 0 ? "1" : `0.${"0".repeat(digits - 1)}1`;
}
