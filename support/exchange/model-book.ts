import type {
  BookCommand,
  BookEvent,
  BookOptions,
  CancelReason,
  DepthLevel,
  OrderBook,
  PlaceCommand,
  RestingOrder,
  TakerEndReason,
} from "../../exchange/core/matching/index.ts";
import { validatePlace } from "../../exchange/core/matching/index.ts";

interface ModelOrder {
  orderId: string;
  userId: string;
  isBid: boolean;
  price: number;
  remaining: number;
  /** Arrival order on the book: the "time" of price-time priority. */
  arrival: number;
}

/**
 * The book to compare the fast one against: each side a plain array kept fully
 * sorted in priority order, matched front to back. Slow and obviously right.
 */
export class ModelBook implements OrderBook {
  private bids: ModelOrder[] = [];
  private asks: ModelOrder[] = [];
  private arrivals = 0;
  private tradeSeq: number;

  constructor(options: BookOptions = {}) {
    this.tradeSeq = options.lastTradeSeq ?? 0;
  }

  get lastTradeSeq(): number {
    return this.tradeSeq;
  }

  execute(command: BookCommand): BookEvent[] {
    if (command.kind === "place") return this.place(command);
    if (command.kind === "cancel") return this.cancel(command.orderId);
    return this.cancelAll(command.userId);
  }

  bestBid(): number | null {
    return this.bids.length > 0 ? this.bids[0].price : null;
  }

  bestAsk(): number | null {
    return this.asks.length > 0 ? this.asks[0].price : null;
  }

  order(orderId: string): RestingOrder | undefined {
    const found = [...this.bids, ...this.asks].find((order) => order.orderId === orderId);
    return found === undefined ? undefined : toResting(found);
  }

  restingOrders(): RestingOrder[] {
    return [...this.bids, ...this.asks].map(toResting);
  }

  depth(isBid: boolean, maxLevels: number): DepthLevel[] {
    const levels: DepthLevel[] = [];
    for (const order of isBid ? this.bids : this.asks) {
      const last = levels[levels.length - 1];
      if (last !== undefined && last.price === order.price) {
        levels[levels.length - 1] = {
          price: last.price,
          amount: last.amount + BigInt(order.remaining),
          orders: last.orders + 1,
        };
      } else {
        levels.push({ price: order.price, amount: BigInt(order.remaining), orders: 1 });
      }
    }
    return levels.slice(0, maxLevels);
  }

  private place(command: PlaceCommand): BookEvent[] {
    const { orderId, userId, isBid } = command;
    const invalid = validatePlace(command);
    if (invalid !== null) return [{ type: "rejected", orderId, code: invalid }];
    if (this.order(orderId) !== undefined) return [{ type: "rejected", orderId, code: "DUPLICATE_ORDER_ID" }];
    const opposite = isBid ? this.asks : this.bids;
    if (command.type === "market" && opposite.length === 0)
      return [{ type: "rejected", orderId, code: "NO_LIQUIDITY" }];
    if (command.postOnly && opposite.length > 0 && canTrade(command, opposite[0].price)) {
      return [{ type: "rejected", orderId, code: "POST_ONLY_WOULD_TAKE" }];
    }
    if (command.timeInForce === "FOK") {
      // Run the real matching on a throwaway copy and keep nothing of it.
      const trial = matchAgainst(
        command,
        opposite.map((order) => ({ ...order })),
        [],
      );
      if (trial.remaining > 0) return [{ type: "rejected", orderId, code: "FOK_NOT_FILLABLE" }];
    }

    const price = command.type === "limit" ? command.price! : null;
    const events: BookEvent[] = [
      { type: "accepted", orderId, userId, isBid, orderType: command.type, price, amount: command.amount },
    ];
    const outcome = matchAgainst(command, opposite, events, () => ++this.tradeSeq);
    const { remaining } = outcome;
    const filled = command.amount - remaining;
    let status: "filled" | "resting" | "cancelled" = "cancelled";
    let reason: TakerEndReason | null = outcome.endReason ?? "UNFILLED";
    if (remaining === 0) {
      status = "filled";
      reason = null;
    } else if (outcome.endReason === null && price !== null && command.timeInForce === "GTC") {
      this.insert({ orderId, userId, isBid, price, remaining, arrival: ++this.arrivals });
      status = "resting";
      reason = null;
    }
    events.push({ type: "done", orderId, userId, isBid, price, filled, remaining, status, reason });
    return events;
  }

  private cancel(orderId: string): BookEvent[] {
    const order = this.order(orderId);
    if (order === undefined) return [{ type: "rejected", orderId, code: "UNKNOWN_ORDER" }];
    return [this.removeById(orderId, "USER_CANCEL")];
  }

  private cancelAll(userId: string): BookEvent[] {
    const own = [...this.bids, ...this.asks]
      .filter((order) => order.userId === userId)
      .sort((a, b) => a.arrival - b.arrival);
    return own.map((order) => this.removeById(order.orderId, "USER_CANCEL"));
  }

  private insert(order: ModelOrder): void {
    const side = order.isBid ? this.bids : this.asks;
    side.push(order);
    side.sort((a, b) =>
      a.price === b.price ? a.arrival - b.arrival : order.isBid ? b.price - a.price : a.price - b.price,
    );
  }

  private removeById(orderId: string, reason: CancelReason): BookEvent {
    for (const side of [this.bids, this.asks]) {
      const index = side.findIndex((order) => order.orderId === orderId);
      if (index >= 0) {
        const [order] = side.splice(index, 1);
        return cancelled(order, reason);
      }
    }
    throw new Error(`order ${orderId} vanished`);
  }
}

/** Matches the taker against `opposite` (best first), removing what it consumes. */
function matchAgainst(
  command: PlaceCommand,
  opposite: ModelOrder[],
  events: BookEvent[],
  nextTradeSeq: () => number = () => 0,
): { remaining: number; endReason: TakerEndReason | null } {
  let remaining = command.amount;
  let budget = command.quoteBudget;
  while (remaining > 0 && opposite.length > 0) {
    const maker = opposite[0];
    if (!canTrade(command, maker.price)) break;
    if (maker.userId === command.userId) {
      if (command.selfTradePrevention === "cancel_taker") return { remaining, endReason: "SELF_TRADE" };
      opposite.shift();
      events.push(cancelled(maker, "SELF_TRADE"));
      continue;
    }
    let quantity = Math.min(remaining, maker.remaining);
    if (budget !== undefined) {
      quantity = Math.min(quantity, Number(budget / BigInt(maker.price)));
      if (quantity === 0) return { remaining, endReason: "BUDGET_EXHAUSTED" };
      budget -= BigInt(quantity) * BigInt(maker.price);
    }
    maker.remaining -= quantity;
    remaining -= quantity;
    events.push({
      type: "trade",
      tradeSeq: nextTradeSeq(),
      makerOrderId: maker.orderId,
      makerUserId: maker.userId,
      takerOrderId: command.orderId,
      takerUserId: command.userId,
      takerIsBid: command.isBid,
      price: maker.price,
      amount: quantity,
      makerRemaining: maker.remaining,
      takerRemaining: remaining,
      timestamp: command.timestamp,
    });
    if (maker.remaining === 0) opposite.shift();
  }
  return { remaining, endReason: null };
}

function canTrade(command: PlaceCommand, restingPrice: number): boolean {
  if (command.type === "market") return true;
  return command.isBid ? restingPrice <= command.price! : restingPrice >= command.price!;
}

function cancelled(order: ModelOrder, reason: CancelReason): BookEvent {
  const { orderId, userId, isBid, price, remaining } = order;
  return { type: "cancelled", orderId, userId, isBid, price, remaining, reason };
}

function toResting(order: ModelOrder): RestingOrder {
  const { orderId, userId, isBid, price, remaining } = order;
  return { orderId, userId, isBid, price, remaining };
}
