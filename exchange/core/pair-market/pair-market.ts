import { applyBookEvents } from "../ledger/book-events.ts";
import type { TradeFees } from "../ledger/commissions.ts";
import { holdForOrder, releaseHold } from "../ledger/orders.ts";
import { applyEntry } from "../ledger/state.ts";
import type { Entry, LedgerRejectCode, LedgerState } from "../ledger/types.ts";
import type {
  BookCommand,
  BookEvent,
  OrderBook,
  PlaceCommand,
  RejectCode,
  SelfTradePrevention,
  TimeInForce,
} from "../matching/types.ts";
import { validatePlace } from "../matching/validate.ts";
import { tickLotsOfQuoteUnits, type PairSpec } from "../money/pair.ts";
import { fail, ok, type Result } from "../result.ts";

// One pair's book and the shared ledger, moved together: lock funds, match, settle.
// Still no I/O and no clock; the storage layer around it commits the returned
// command, events and entries in one transaction before answering the client.

export interface PairMarket {
  readonly pair: PairSpec;
  /** One rule set for everyone, or per trade by the maker's and taker's tiers. */
  readonly fees: TradeFees;
  readonly book: OrderBook;
}

export interface PlaceOrderRequest {
  readonly orderId: string;
  readonly userId: string;
  readonly isBid: boolean;
  readonly type: "limit" | "market";
  /** Ticks; limit orders only. */
  readonly price?: number;
  /** Lots. */
  readonly amount: number;
  readonly timeInForce: TimeInForce;
  readonly postOnly: boolean;
  readonly selfTradePrevention: SelfTradePrevention;
  /** Market buys: the most quote (in quote base units) to spend, which is what gets locked. */
  readonly quoteBudget?: bigint;
  readonly timestamp: number;
}

export interface Outcome {
  /** What the book was given (storage records it to rebuild the book); null when nothing reached the book. */
  readonly command: BookCommand | null;
  /** The book's events; a book-level rejection is a single "rejected" event. */
  readonly events: BookEvent[];
  readonly entries: Entry[];
}

export type PlaceRejectCode = RejectCode | LedgerRejectCode;

/** Rejects before the book (bad order, funds) as a failed Result; anything the book decides comes back as events. */
export function placeOrder(
  ledger: LedgerState,
  market: PairMarket,
  request: PlaceOrderRequest,
): Result<Outcome, PlaceRejectCode> {
  const { quoteBudget, ...rest } = request;
  const command: PlaceCommand = {
    kind: "place",
    ...rest,
    ...(quoteBudget === undefined ? {} : { quoteBudget: tickLotsOfQuoteUnits(quoteBudget, market.pair) }),
  };
  const invalid = validatePlace(command);
  if (invalid !== null) return fail(invalid, `order ${request.orderId} rejected: ${invalid}`);
  const hold = holdForOrder(ledger, market.pair, request);
  if (!hold.ok) return hold;
  applyEntry(ledger, hold.value);

  const events = market.book.execute(command);
  const entries = [hold.value];
  if (events[0]?.type === "rejected") {
    const release = releaseHold(ledger, request.orderId);
    if (release !== null) {
      applyEntry(ledger, release);
      entries.push(release);
    }
    return ok({ command, events, entries });
  }
  entries.push(...applyBookEvents(ledger, market.pair, market.fees, events));
  return ok({ command, events, entries });
}

/** Cancels one of the user's own orders; another user's order id looks unknown, so ids leak nothing. */
export function cancelOrder(ledger: LedgerState, market: PairMarket, userId: string, orderId: string): Outcome {
  if (market.book.order(orderId)?.userId !== userId) {
    return { command: null, events: [{ type: "rejected", orderId, code: "UNKNOWN_ORDER" }], entries: [] };
  }
  const command: BookCommand = { kind: "cancel", orderId };
  const events = market.book.execute(command);
  return { command, events, entries: applyBookEvents(ledger, market.pair, market.fees, events) };
}

export function cancelAllOrders(ledger: LedgerState, market: PairMarket, userId: string): Outcome {
  const command: BookCommand = { kind: "cancelAll", userId };
  const events = market.book.execute(command);
  return { command, events, entries: applyBookEvents(ledger, market.pair, market.fees, events) };
}
