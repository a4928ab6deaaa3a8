import { roundDown } from "../account/amounts.ts";
import { compareDecimal, fromScaled, toScaled } from "../lib/decimal.ts";

/**
 * The order form's fields as the body of POST /api/orders: amount and price rounded to the pair's
 * digitsAmount and digitsPrice (the exchange refuses finer ones, it never rounds), exact decimal
 * strings, and only the options that fit the order type. Each rounding goes the trader's way: the
 * amount down (no order trades more than typed), a buy's price down (never pays more per unit) and
 * a sell's price up (never sells for less). The form shows the value sent whenever it differs from
 * the typed one (roundingHint), so no rounding goes unseen.
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
  const price = roundPrice(priceText, pair.digitsPrice, form.side);
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

/** A price with `digits` decimals on the trader's side of `text`: down for a buy, up for a sell. */
function roundPrice(text: string, digits: number, side: OrderForm["side"]): string {
  const down = roundDown(text, digits);
  if (side === "buy" || compareDecimal(down, text) === 0) return down;
  return fromScaled(toScaled(down, digits) + 1n, digits);
}

/** The smallest amount with `digits` decimals: 2 -> "0.01". */
const step = (digits: number): string => fromScaled(1n, digits);

/**
 * What the form says beside a field whose typed value is not what will be sent: the value sent,
 * the pair's digits and the direction. null when nothing changes (or the text is no decimal: the
 * submit says why).
 */
export function roundingHint(
  field: "price" | "amount",
  text: string,
  digits: number,
  side: OrderForm["side"],
): string | null {
  const typed = text.trim();
  if (!DECIMAL.test(typed)) return null;
  const sent = field === "price" ? roundPrice(typed, digits, side) : roundDown(typed, digits);
  if (compareDecimal(sent, typed) === 0) return null;
  const decimals = `this pair takes ${digits} decimal${digits === 1 ? "" : "s"}`;
  if (sent === "0") return `Rounds down to 0: ${decimals}, at least ${step(digits)}`;
  const why =
    field === "amount"
      ? "rounded down, so never more than typed"
      : side === "buy"
        ? "rounded down, so a buy never pays more than typed"
        : "rounded up, so a sell never sells for less than typed";
  return `Sent as ${sent}: ${decimals} (${why})`;
}

/**
 * price x amount of a limit order as it will be sent (both rounded), exact, in the quote
 * currency; null for a market order or a form that would not be sent.
 */
export function orderTotal(form: OrderForm, pair: PairDigits): string | null {
  const built = buildOrder(form, pair);
  if (!built.ok || built.body.price === undefined) return null;
  const { price, amount } = built.body;
  return fromScaled(
    toScaled(price, pair.digitsPrice) * toScaled(amount, pair.digitsAmount),
    pair.digitsPrice + pair.digitsAmount,
  );
}
