import { DomainError, fail, invalidInput, ok, type DomainErrorCode, type Result } from "../core/result.ts";
import { balanceOf, feesCollected, type Entry, type LedgerState } from "../core/ledger/index.ts";
import { dealId, type BookEvent, type SelfTradePrevention, type TimeInForce } from "../core/matching/index.ts";
import { parseAmount, parseCurrencyUnits, parsePrice, quoteUnitsOf } from "../core/money/index.ts";
import type { PlaceRejectCode } from "../core/pair-market/index.ts";
import type { BalanceRow, DealRow, FeeTotalRow, OrderRow, WriteUnit } from "./records.ts";
import type { Pair } from "./reference-data.ts";

// Turning requests into engine commands and the engine's answers into rows. Pure functions over
// the in-memory state; the Exchange class sequences them and commits what they return.

export interface PlaceOrderInput {
  readonly currencyPairCode: string;
  readonly isBid: boolean;
  readonly type: "limit" | "market";
  /** Decimal text in the base currency. */
  readonly amount: string;
  /** Decimal text in the quote currency; limit orders only. */
  readonly price?: string;
  /** Market buys: the most quote to spend (decimal text); default: what `amount` costs on the book now. */
  readonly quoteAmount?: string;
  readonly timeInForce?: TimeInForce;
  readonly postOnly?: boolean;
  readonly selfTradePrevention?: SelfTradePrevention;
  readonly clientOrderId?: string;
}

export interface ParsedOrder {
  readonly priceTicks: number | undefined;
  readonly amountLots: number;
  readonly quoteBudget: bigint | undefined;
  readonly timeInForce: TimeInForce;
}

/** Decimal text to ticks and lots, refusing digits beyond the pair's precision (never rounding money silently). */
export function parseOrder(
  pair: Pair,
  input: PlaceOrderInput,
  askSide: () => { price: number; amount: bigint }[],
): ParsedOrder {
  const amount = parseAmount(input.amount, pair.spec);
  if (!amount.ok) throw invalidInput("amount", describe(amount.code, pair.spec.digitsAmount));
  if (amount.value === 0) throw invalidInput("amount", "must be positive");
  const timeInForce = input.timeInForce ?? (input.type === "limit" ? "GTC" : "IOC");
  if (input.type === "limit") {
    if (input.price === undefined) throw invalidInput("price", "is required for a limit order");
    if (input.quoteAmount !== undefined) throw invalidInput("quoteAmount", "is only for market buys");
    const price = parsePrice(input.price, pair.spec);
    if (!price.ok) throw invalidInput("price", describe(price.code, pair.spec.digitsPrice));
    if (price.value === 0) throw invalidInput("price", "must be positive");
    if (input.postOnly && timeInForce !== "GTC") throw invalidInput("postOnly", "needs timeInForce GTC");
    return { priceTicks: price.value, amountLots: amount.value, quoteBudget: undefined, timeInForce };
  }
  if (input.price !== undefined) throw invalidInput("price", "must be omitted for a market order");
  if (timeInForce === "GTC") throw invalidInput("timeInForce", "a market order cannot rest: use IOC or FOK");
  if (input.postOnly) throw invalidInput("postOnly", "a market order always takes");
  if (!input.isBid) {
    if (input.quoteAmount !== undefined) throw invalidInput("quoteAmount", "is only for market buys");
    return { priceTicks: undefined, amountLots: amount.value, quoteBudget: undefined, timeInForce };
  }
  if (input.quoteAmount !== undefined) {
    const budget = parseCurrencyUnits(input.quoteAmount, pair.spec.quote);
    if (!budget.ok) throw invalidInput("quoteAmount", describe(budget.code, pair.spec.quote.decimals));
    if (budget.value <= 0n) throw invalidInput("quoteAmount", "must be positive");
    return { priceTicks: undefined, amountLots: amount.value, quoteBudget: budget.value, timeInForce };
  }
  // Lock what the amount costs against the asks as they are now: the command runs before
  // anything else touches the book, so the estimate is exact.
  let lotsLeft = BigInt(amount.value);
  let cost = 0n;
  for (const level of askSide()) {
    if (lotsLeft === 0n) break;
    const lots = level.amount < lotsLeft ? level.amount : lotsLeft;
    cost += quoteUnitsOf(level.price, lots, pair.spec);
    lotsLeft -= lots;
  }
  if (cost === 0n) throw new DomainError("NO_LIQUIDITY", `No asks on ${pair.row.code} for a market buy`);
  return { priceTicks: undefined, amountLots: amount.value, quoteBudget: cost, timeInForce };
}

function describe(code: string, digits: number): string {
  if (code === "TOO_MANY_DECIMALS") return `has more than ${digits} fractional digits`;
  if (code === "OUT_OF_RANGE") return "is negative or too large";
  return "must be a plain decimal number such as 12.5";
}

/** Rejections before the book, as the HTTP codes clients see. */
export function placeRejection(code: PlaceRejectCode, message: string): DomainError {
  switch (code) {
    case "INSUFFICIENT_FUNDS":
      return new DomainError("INSUFFICIENT_BALANCE", message);
    case "BELOW_MIN_QUOTE_AMOUNT":
      return new DomainError("MIN_QUOTE_AMOUNT", message);
    case "DUPLICATE_ORDER_ID":
      throw new Error(`order id collision: ${message}`);
    default:
      return new DomainError("INVALID_PARAM", message);
  }
}

/** Book-level rejections: the order reached the book and was turned away (it is kept, status rejected). */
const BOOK_REJECTIONS = {
  NO_LIQUIDITY: "No liquidity on the other side for a market order",
  POST_ONLY_WOULD_TAKE: "A post-only order would have traded immediately",
  FOK_NOT_FILLABLE: "A fill-or-kill order could not be filled in full",
} as const satisfies Partial<Record<DomainErrorCode, string>>;

/**
 * A placed order the book turned away, as the rejection its client gets; ok when it was not
 * rejected. Validation before the book refuses every other engine rejection, so one here is a bug.
 */
export function bookRejection(order: OrderRow): Result<OrderRow, DomainErrorCode> {
  if (order.status !== "rejected") return ok(order);
  const code = order.reason;
  if (code === null || !(code in BOOK_REJECTIONS)) throw new Error(`order ${order.id} rejected by the book: ${code}`);
  const reason = code as keyof typeof BOOK_REJECTIONS;
  return fail(reason, `Order ${order.id} rejected: ${BOOK_REJECTIONS[reason]}`);
}

export interface Applied {
  readonly unit: WriteUnit;
  /** Every order row the command changed, the taker first when there is one. */
  readonly orders: OrderRow[];
  readonly deals: DealRow[];
}

/**
 * Folds a command's events into rows: the taker's new row, updated makers, deals with their
 * fees (read from the trade entries the ledger applied), and the final balances it touched.
 */
export function rowsOfEvents(args: {
  pair: Pair;
  ledger: LedgerState;
  openOrders: Map<string, OrderRow>;
  taker: OrderRow | null;
  events: readonly BookEvent[];
  entries: readonly Entry[];
  nowMs: number;
}): Applied {
  const { pair, ledger, openOrders, events, entries, nowMs } = args;
  const changed = new Map<string, OrderRow>();
  let taker = args.taker;
  const deals: DealRow[] = [];
  const feeOfDeal = feesByDeal(entries, pair);
  const update = (row: OrderRow) => {
    changed.set(row.id, row);
    if (row.status === "open") openOrders.set(row.id, row);
    else openOrders.delete(row.id);
  };
  for (const event of events) {
    switch (event.type) {
      case "trade": {
        const quote = quoteUnitsOf(event.price, event.amount, pair.spec);
        const maker = changed.get(event.makerOrderId) ?? openOrders.get(event.makerOrderId);
        if (maker === undefined) throw new Error(`trade against unknown maker ${event.makerOrderId}`);
        update({
          ...maker,
          filledLots: maker.filledLots + event.amount,
          remainingLots: event.makerRemaining,
          filledQuote: maker.filledQuote + quote,
          status: event.makerRemaining === 0 ? "filled" : "open",
          updatedAt: nowMs,
        });
        if (taker !== null)
          taker = { ...taker, filledLots: taker.filledLots + event.amount, filledQuote: taker.filledQuote + quote };
        const id = dealId(pair.row.code, event.tradeSeq);
        const fees = feeOfDeal.get(id) ?? { buyer: 0n, seller: 0n };
        deals.push({
          id,
          pairCode: pair.row.code,
          tradeSeq: event.tradeSeq,
          priceTicks: event.price,
          amountLots: event.amount,
          takerIsBid: event.takerIsBid,
          makerOrderId: event.makerOrderId,
          takerOrderId: event.takerOrderId,
          makerUserId: event.makerUserId,
          takerUserId: event.takerUserId,
          makerFee: event.takerIsBid ? fees.seller : fees.buyer,
          takerFee: event.takerIsBid ? fees.buyer : fees.seller,
          executedAtUs: event.timestamp,
        });
        break;
      }
      case "cancelled": {
        const resting = changed.get(event.orderId) ?? openOrders.get(event.orderId);
        if (resting === undefined) throw new Error(`cancel of unknown order ${event.orderId}`);
        update({ ...resting, remainingLots: 0, status: "cancelled", reason: event.reason, updatedAt: nowMs });
        break;
      }
      case "done":
        if (taker === null) throw new Error(`done without a taker: ${event.orderId}`);
        taker = {
          ...taker,
          remainingLots: event.status === "resting" ? event.remaining : 0,
          status: event.status === "resting" ? "open" : event.status,
          reason: event.reason,
          updatedAt: nowMs,
        };
        break;
      case "rejected":
        if (taker !== null)
          taker = { ...taker, status: "rejected", reason: event.code, remainingLots: 0, updatedAt: nowMs };
        break;
      case "accepted":
        break;
    }
  }
  // The taker is never among the makers or cancelled resting orders of its own command.
  const others = [...changed.values()];
  if (taker !== null) update(taker);
  const orders = taker === null ? others : [taker, ...others];
  return { unit: { orders, deals, entries, ...balancesTouched(ledger, entries) }, orders, deals };
}

/** Buyer (base) and seller (quote) fees of each trade entry, keyed by deal id. */
function feesByDeal(entries: readonly Entry[], pair: Pair): Map<string, { buyer: bigint; seller: bigint }> {
  const result = new Map<string, { buyer: bigint; seller: bigint }>();
  for (const entry of entries) {
    if (entry.kind !== "trade") continue;
    let buyer = 0n;
    let seller = 0n;
    for (const posting of entry.postings) {
      if (posting.account.kind !== "fees") continue;
      if (posting.currency === pair.spec.base.code) buyer += posting.delta;
      else seller += posting.delta;
    }
    result.set(entry.ref, { buyer, seller });
  }
  return result;
}

/** Final balances and fee totals of everything the entries touched. */
export function balancesTouched(
  ledger: LedgerState,
  entries: readonly Entry[],
): { balances: BalanceRow[]; fees: FeeTotalRow[] } {
  const accounts = new Map<string, { userId: string; currency: string }>();
  const feeCurrencies = new Set<string>();
  for (const entry of entries) {
    for (const { account, currency } of entry.postings) {
      if (account.kind === "available" || account.kind === "locked" || account.kind === "fee-hold")
        accounts.set(`${account.userId}\u0000${currency}`, { userId: account.userId, currency });
      else if (account.kind === "fees") feeCurrencies.add(currency);
    }
  }
  const balances = [...accounts.values()].map(({ userId, currency }) => ({
    userId,
    currency,
    ...balanceOf(ledger, userId, currency),
  }));
  const fees = [...feeCurrencies].map((currency) => ({ currency, amount: feesCollected(ledger, currency) }));
  return { balances, fees };
}
