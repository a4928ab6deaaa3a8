import { dealId } from "../matching/deal-id.ts";
import type { TradeEvent } from "../matching/types.ts";
import { baseUnitsOfLots, quoteUnitsOf, type PairSpec } from "../money/pair.ts";
import { fail, ok, type Result } from "../result.ts";
import { feeFor, feesOfTrade, type TradeFees } from "./commissions.ts";
import { balanceOf, holdOf } from "./state.ts";
import type { Entry, LedgerRejectCode, LedgerState, Posting } from "./types.ts";
import { withoutZeros } from "./wallet.ts";

export interface OrderHoldRequest {
  readonly orderId: string;
  readonly userId: string;
  readonly isBid: boolean;
  readonly type: "limit" | "market";
  /** Ticks; limit orders only. */
  readonly price?: number;
  /** Lots. */
  readonly amount: number;
  /** Market buys only, in quote base units: their cost is unknown, so they lock a budget. */
  readonly quoteBudget?: bigint;
}

/** What an order must lock: bids lock quote (price x amount, or the budget), asks lock base. */
export function requiredHold(
  pair: PairSpec,
  order: OrderHoldRequest,
): Result<{ currency: string; amount: bigint }, LedgerRejectCode> {
  if (!isPositiveSafeInteger(order.amount))
    return fail("INVALID_ORDER", `order ${order.orderId}: amount must be a positive whole number of lots`);
  if (!order.isBid) return ok({ currency: pair.base.code, amount: baseUnitsOfLots(order.amount, pair) });
  if (order.type === "limit") {
    if (!isPositiveSafeInteger(order.price))
      return fail("INVALID_ORDER", `order ${order.orderId}: price must be a positive whole number of ticks`);
    return ok({ currency: pair.quote.code, amount: quoteUnitsOf(order.price, order.amount, pair) });
  }
  if (order.quoteBudget === undefined || order.quoteBudget <= 0n) {
    return fail("QUOTE_BUDGET_REQUIRED", `order ${order.orderId}: a market buy needs a positive quote budget to lock`);
  }
  return ok({ currency: pair.quote.code, amount: order.quoteBudget });
}

export function holdForOrder(
  state: LedgerState,
  pair: PairSpec,
  order: OrderHoldRequest,
): Result<Entry, LedgerRejectCode> {
  const required = requiredHold(pair, order);
  if (!required.ok) return required;
  const { currency, amount } = required.value;
  if (holdOf(state, order.orderId) !== undefined)
    return fail("DUPLICATE_ORDER_ID", `order ${order.orderId} already holds funds`);
  // A market sell's value is unknown until it trades, so only orders with a known
  // quote value (limit orders, and market buys by their budget) meet the minimum here.
  if (pair.minQuoteAmount !== null && (order.isBid || order.type === "limit")) {
    const quoteValue = order.isBid ? amount : quoteUnitsOf(order.price!, order.amount, pair);
    if (quoteValue < pair.minQuoteAmount) {
      return fail(
        "BELOW_MIN_QUOTE_AMOUNT",
        `order ${order.orderId}: worth ${quoteValue} ${pair.quote.code} units, minimum ${pair.minQuoteAmount}`,
      );
    }
  }
  const available = balanceOf(state, order.userId, currency).available;
  if (available < amount)
    return fail(
      "INSUFFICIENT_FUNDS",
      `order ${order.orderId}: needs ${amount} ${currency} units, ${available} available`,
    );
  return ok({
    kind: "order-hold",
    ref: order.orderId,
    postings: [
      { account: { kind: "available", userId: order.userId }, currency, delta: -amount },
      { account: { kind: "locked", userId: order.userId, orderId: order.orderId }, currency, delta: amount },
    ],
  });
}

/** Returns to available what the order holds beyond `keep`; null when there is nothing to return. */
export function releaseHold(state: LedgerState, orderId: string, keep = 0n): Entry | null {
  const hold = holdOf(state, orderId);
  if (hold === undefined || hold.amount <= keep) return null;
  const released = hold.amount - keep;
  return {
    kind: "order-release",
    ref: orderId,
    postings: [
      { account: { kind: "locked", userId: hold.userId, orderId }, currency: hold.currency, delta: -released },
      { account: { kind: "available", userId: hold.userId }, currency: hold.currency, delta: released },
    ],
  };
}

/**
 * Settles one fill from both orders' holds. Each side pays a commission in the currency
 * it receives, by its role (maker or taker), rounded up. The buyer's hold covers the
 * fill because a bid locks its own limit price and a taker never pays more than that.
 */
export function settleTrade(pair: PairSpec, tradeFees: TradeFees, trade: TradeEvent): Entry {
  const fees = feesOfTrade(tradeFees, trade);
  const base = baseUnitsOfLots(trade.amount, pair);
  const quote = quoteUnitsOf(trade.price, trade.amount, pair);
  const buyer = trade.takerIsBid
    ? { userId: trade.takerUserId, orderId: trade.takerOrderId, fee: feeFor(base, fees.taker.base) }
    : { userId: trade.makerUserId, orderId: trade.makerOrderId, fee: feeFor(base, fees.maker.base) };
  const seller = trade.takerIsBid
    ? { userId: trade.makerUserId, orderId: trade.makerOrderId, fee: feeFor(quote, fees.maker.quote) }
    : { userId: trade.takerUserId, orderId: trade.takerOrderId, fee: feeFor(quote, fees.taker.quote) };
  const postings: Posting[] = [
    {
      account: { kind: "locked", userId: buyer.userId, orderId: buyer.orderId },
      currency: pair.quote.code,
      delta: -quote,
    },
    { account: { kind: "available", userId: seller.userId }, currency: pair.quote.code, delta: quote - seller.fee },
    { account: { kind: "fees" }, currency: pair.quote.code, delta: seller.fee },
    {
      account: { kind: "locked", userId: seller.userId, orderId: seller.orderId },
      currency: pair.base.code,
      delta: -base,
    },
    { account: { kind: "available", userId: buyer.userId }, currency: pair.base.code, delta: base - buyer.fee },
    { account: { kind: "fees" }, currency: pair.base.code, delta: buyer.fee },
  ];
  return { kind: "trade", ref: dealId(pair.code, trade.tradeSeq), postings: withoutZeros(postings) };
}

function isPositiveSafeInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0;
}
