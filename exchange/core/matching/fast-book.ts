import { BookSide, RestingNode } from "./price-levels.ts";
import type {
  BookCommand,
  BookEvent,
  BookOptions,
  DepthLevel,
  OrderBook,
  PlaceCommand,
  RestingOrder,
  TakerEndReason,
} from "./types.ts";
import { validatePlace } from "./validate.ts";

/** The production book: sorted price levels of FIFO queues, O(1) lookup and cancel by id. */
export class FastBook implements OrderBook {
  private readonly bids = new BookSide(true);
  private readonly asks = new BookSide(false);
  private readonly orders = new Map<string, RestingNode>();
  // Per-user index so cancelAll costs the user's orders, not the whole book.
  // Set iteration is insertion order, which is the order the orders came to rest.
  private readonly ordersByUser = new Map<string, Set<RestingNode>>();
  private tradeSeq: number;

  constructor(options: BookOptions = {}) {
    this.tradeSeq = options.lastTradeSeq ?? 0;
  }

  get lastTradeSeq(): number {
    return this.tradeSeq;
  }

  execute(command: BookCommand): BookEvent[] {
    switch (command.kind) {
      case "place":
        return this.place(command);
      case "cancel":
        return this.cancel(command.orderId);
      case "cancelAll":
        return this.cancelAll(command.userId);
    }
  }

  bestBid(): number | null {
    return this.bids.best()?.price ?? null;
  }

  bestAsk(): number | null {
    return this.asks.best()?.price ?? null;
  }

  order(orderId: string): RestingOrder | undefined {
    const node = this.orders.get(orderId);
    return node === undefined ? undefined : snapshot(node);
  }

  restingOrders(): RestingOrder[] {
    const result: RestingOrder[] = [];
    for (const side of [this.bids, this.asks]) {
      for (let i = side.levels.length - 1; i >= 0; i--) {
        for (let node = side.levels[i].head; node !== null; node = node.next) result.push(snapshot(node));
      }
    }
    return result;
  }

  depth(isBid: boolean, maxLevels: number): DepthLevel[] {
    const levels = (isBid ? this.bids : this.asks).levels;
    const result: DepthLevel[] = [];
    for (let i = levels.length - 1; i >= 0 && result.length < maxLevels; i--) {
      let amount = 0n;
      for (let node = levels[i].head; node !== null; node = node.next) amount += BigInt(node.remaining);
      result.push({ price: levels[i].price, amount, orders: levels[i].count });
    }
    return result;
  }

  private place(command: PlaceCommand): BookEvent[] {
    const { orderId, userId, isBid } = command;
    const invalid = validatePlace(command);
    if (invalid !== null) return [{ type: "rejected", orderId, code: invalid }];
    if (this.orders.has(orderId)) return [{ type: "rejected", orderId, code: "DUPLICATE_ORDER_ID" }];

    const opposite = isBid ? this.asks : this.bids;
    const limit = command.type === "limit" ? command.price! : null;
    if (limit === null && opposite.levels.length === 0) return [{ type: "rejected", orderId, code: "NO_LIQUIDITY" }];
    if (command.postOnly) {
      const best = opposite.best();
      if (best !== undefined && crosses(isBid, best.price, limit)) {
        return [{ type: "rejected", orderId, code: "POST_ONLY_WOULD_TAKE" }];
      }
    }
    if (command.timeInForce === "FOK" && !this.canFillCompletely(command, opposite, limit)) {
      return [{ type: "rejected", orderId, code: "FOK_NOT_FILLABLE" }];
    }

    const events: BookEvent[] = [
      { type: "accepted", orderId, userId, isBid, orderType: command.type, price: limit, amount: command.amount },
    ];
    let remaining = command.amount;
    let budget = command.quoteBudget;
    let endReason: TakerEndReason | null = null;

    matching: while (remaining > 0) {
      const level = opposite.best();
      if (level === undefined || !crosses(isBid, level.price, limit)) break;
      let maker = level.head;
      while (maker !== null && remaining > 0) {
        const next = maker.next;
        if (maker.userId === userId) {
          if (command.selfTradePrevention === "cancel_taker") {
            endReason = "SELF_TRADE";
            break matching;
          }
          this.remove(maker, opposite);
          events.push(cancelledEvent(maker, "SELF_TRADE"));
          maker = next;
          continue;
        }
        let quantity = remaining < maker.remaining ? remaining : maker.remaining;
        if (budget !== undefined) {
          const affordable = budget / BigInt(level.price);
          if (affordable < BigInt(quantity)) quantity = Number(affordable);
          if (quantity === 0) {
            endReason = "BUDGET_EXHAUSTED";
            break matching;
          }
          budget -= BigInt(quantity) * BigInt(level.price);
        }
        maker.remaining -= quantity;
        remaining -= quantity;
        events.push({
          type: "trade",
          tradeSeq: ++this.tradeSeq,
          makerOrderId: maker.orderId,
          makerUserId: maker.userId,
          takerOrderId: orderId,
          takerUserId: userId,
          takerIsBid: isBid,
          price: level.price,
          amount: quantity,
          makerRemaining: maker.remaining,
          takerRemaining: remaining,
          timestamp: command.timestamp,
        });
        if (maker.remaining > 0) {
          // The maker outlived the taker's appetite: either the taker is filled or its
          // budget cannot pay for the next lot. Either way matching ends here, before
          // self-trade prevention touches any order further down the book.
          if (remaining > 0) endReason = "BUDGET_EXHAUSTED";
          break matching;
        }
        this.remove(maker, opposite);
        maker = next;
      }
    }

    const filled = command.amount - remaining;
    if (remaining === 0) {
      events.push({
        type: "done",
        orderId,
        userId,
        isBid,
        price: limit,
        filled,
        remaining,
        status: "filled",
        reason: null,
      });
    } else if (endReason === null && limit !== null && command.timeInForce === "GTC") {
      this.rest(new RestingNode(orderId, userId, isBid, limit, remaining));
      events.push({
        type: "done",
        orderId,
        userId,
        isBid,
        price: limit,
        filled,
        remaining,
        status: "resting",
        reason: null,
      });
    } else {
      const reason = endReason ?? "UNFILLED";
      events.push({
        type: "done",
        orderId,
        userId,
        isBid,
        price: limit,
        filled,
        remaining,
        status: "cancelled",
        reason,
      });
    }
    return events;
  }

  /** Dry run of the matching loop: a FOK order must fill whole or leave no trace. */
  private canFillCompletely(command: PlaceCommand, opposite: BookSide, limit: number | null): boolean {
    let remaining = command.amount;
    let budget = command.quoteBudget;
    for (let i = opposite.levels.length - 1; i >= 0; i--) {
      const level = opposite.levels[i];
      if (!crosses(command.isBid, level.price, limit)) return false;
      for (let maker = level.head; maker !== null; maker = maker.next) {
        if (maker.userId === command.userId) {
          if (command.selfTradePrevention === "cancel_taker") return false;
          continue;
        }
        let quantity = remaining < maker.remaining ? remaining : maker.remaining;
        if (budget !== undefined) {
          const affordable = budget / BigInt(level.price);
          if (affordable < BigInt(quantity)) quantity = Number(affordable);
          if (quantity === 0) return false;
          budget -= BigInt(quantity) * BigInt(level.price);
        }
        remaining -= quantity;
        if (remaining === 0) return true;
        if (quantity < maker.remaining) return false; // budget spent mid-order
      }
    }
    return false;
  }

  private cancel(orderId: string): BookEvent[] {
    const node = this.orders.get(orderId);
    if (node === undefined) return [{ type: "rejected", orderId, code: "UNKNOWN_ORDER" }];
    this.remove(node, node.isBid ? this.bids : this.asks);
    return [cancelledEvent(node, "USER_CANCEL")];
  }

  private cancelAll(userId: string): BookEvent[] {
    const own = this.ordersByUser.get(userId);
    if (own === undefined) return [];
    const events: BookEvent[] = [];
    for (const node of [...own]) {
      this.remove(node, node.isBid ? this.bids : this.asks);
      events.push(cancelledEvent(node, "USER_CANCEL"));
    }
    return events;
  }

  private rest(node: RestingNode): void {
    (node.isBid ? this.bids : this.asks).append(node);
    this.orders.set(node.orderId, node);
    let own = this.ordersByUser.get(node.userId);
    if (own === undefined) {
      own = new Set();
      this.ordersByUser.set(node.userId, own);
    }
    own.add(node);
  }

  private remove(node: RestingNode, side: BookSide): void {
    side.unlink(node);
    this.orders.delete(node.orderId);
    const own = this.ordersByUser.get(node.userId)!;
    own.delete(node);
    if (own.size === 0) this.ordersByUser.delete(node.userId);
  }
}

/** Whether a taker on the given side may trade at a resting price; market orders (no limit) always may. */
function crosses(takerIsBid: boolean, restingPrice: number, limit: number | null): boolean {
  if (limit === null) return true;
  return takerIsBid ? restingPrice <= limit : restingPrice >= limit;
}

function cancelledEvent(node: RestingNode, reason: "USER_CANCEL" | "SELF_TRADE"): BookEvent {
  return {
    type: "cancelled",
    orderId: node.orderId,
    userId: node.userId,
    isBid: node.isBid,
    price: node.price,
    remaining: node.remaining,
    reason,
  };
}

function snapshot(node: RestingNode): RestingOrder {
  return {
    orderId: node.orderId,
    userId: node.userId,
    isBid: node.isBid,
    price: node.price,
    remaining: node.remaining,
  };
}
