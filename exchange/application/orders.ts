import { randomUUID } from "node:crypto";
import type { SelfTradePrevention } from "../core/matching/index.ts";
import { cancelAllOrders, cancelOrder, placeOrder } from "../core/pair-market/index.ts";
import { DomainError } from "../core/result.ts";
import { InFlight } from "./in-flight.ts";
import { parseOrder, placeRejection, rowsOfEvents, type PlaceOrderInput } from "./order-rows.ts";
import type { ExchangeStore, OrderQuery } from "./ports.ts";
import type { DealRow, OrderRow, Page, WriteUnit } from "./records.ts";
import type { Sequencer } from "./sequencer.ts";

// Placing, cancelling and reading orders.

export interface OrderResult {
  readonly order: OrderRow;
  readonly fills: DealRow[];
  /** true when clientOrderId matched an earlier order: this is that order, nothing new was placed. */
  readonly replay: boolean;
}

export interface OrdersOptions {
  readonly sequencer: Sequencer;
  /** The guarded store (refuses while the exchange is unavailable). */
  readonly store: ExchangeStore;
  readonly defaultSelfTradePrevention?: SelfTradePrevention;
}

export class Orders {
  private readonly seq: Sequencer;
  private readonly options: OrdersOptions;
  /** Commands keyed by a client's id while they run; once committed, the database answers repeats. */
  private readonly orderIds = new InFlight<OrderResult>();

  constructor(options: OrdersOptions) {
    this.seq = options.sequencer;
    this.options = options;
  }

  private get store(): ExchangeStore {
    return this.options.store;
  }

  /** Places an order; a repeated clientOrderId returns the first result instead of a second order. */
  async placeOrder(userId: string, input: PlaceOrderInput): Promise<OrderResult> {
    this.seq.admit();
    if (input.clientOrderId === undefined) return this.placeNow(userId, input);
    const clientOrderId = input.clientOrderId;
    const { value, replay } = await this.orderIds.once(
      `${userId}\u0000${clientOrderId}`,
      async () => {
        const earlier = await this.store.getOrderByClientId(userId, clientOrderId);
        return earlier === null
          ? null
          : { order: earlier, fills: await this.store.listOrderDeals(earlier.id), replay: true };
      },
      () => this.placeNow(userId, input),
    );
    return { ...value, replay };
  }

  private async placeNow(userId: string, input: PlaceOrderInput): Promise<OrderResult> {
    const seq = this.seq;
    // Only new orders need an active pair; cancels and restarts reach the orders of an inactive one.
    seq.reference.pair(input.currencyPairCode);
    const market = seq.market(input.currencyPairCode);
    const parsed = parseOrder(market.pairRef, input, () => market.book.depth(false, Number.MAX_SAFE_INTEGER));
    seq.admit();
    const nowMs = seq.nowMs();
    const request = {
      orderId: randomUUID(),
      userId,
      isBid: input.isBid,
      type: input.type,
      ...(parsed.priceTicks === undefined ? {} : { price: parsed.priceTicks }),
      amount: parsed.amountLots,
      timeInForce: parsed.timeInForce,
      postOnly: input.postOnly ?? false,
      selfTradePrevention: input.selfTradePrevention ?? this.options.defaultSelfTradePrevention ?? "cancel_taker",
      ...(parsed.quoteBudget === undefined ? {} : { quoteBudget: parsed.quoteBudget }),
      timestamp: seq.nowUs(),
    } as const;
    const outcome = seq.mutating(() => placeOrder(seq.ledger, market, request));
    if (!outcome.ok) throw placeRejection(outcome.code, outcome.message);
    const taker: OrderRow = {
      id: request.orderId,
      userId,
      pairCode: market.pairRef.row.code,
      clientOrderId: input.clientOrderId ?? null,
      isBid: input.isBid,
      type: input.type,
      timeInForce: request.timeInForce,
      postOnly: request.postOnly,
      selfTradePrevention: request.selfTradePrevention,
      priceTicks: parsed.priceTicks ?? null,
      amountLots: parsed.amountLots,
      quoteBudget: parsed.quoteBudget ?? null,
      filledLots: 0,
      remainingLots: 0,
      filledQuote: 0n,
      status: "open",
      reason: null,
      seq: ++seq.orderSeq,
      createdAt: nowMs,
      updatedAt: nowMs,
    };
    const applied = seq.mutating(() =>
      rowsOfEvents({
        pair: market.pairRef,
        ledger: seq.ledger,
        openOrders: seq.openOrders,
        taker,
        events: outcome.value.events,
        entries: outcome.value.entries,
        nowMs,
      }),
    );
    await seq.commit(applied.unit);
    return { order: applied.orders[0], fills: applied.deals, replay: false };
  }

  /** The order as committed: its resting state from the committed view, else as stored. */
  async order(userId: string, orderId: string): Promise<OrderRow> {
    const open = this.seq.committed.openOrder(orderId);
    if (open !== undefined && open.userId === userId) return open;
    const stored = await this.store.getOrder(orderId);
    // Another user's order looks unknown, so ids leak nothing.
    if (stored === null || stored.userId !== userId) throw new DomainError("NOT_FOUND", `No order ${orderId}`);
    return stored;
  }

  async cancelOrder(userId: string, orderId: string): Promise<OrderRow> {
    const seq = this.seq;
    const open = seq.openOrders.get(orderId);
    if (open === undefined || open.userId !== userId) {
      const stored = await this.order(userId, orderId);
      throw new DomainError("ORDER_NOT_OPEN", `Order ${orderId} is ${stored.status}`);
    }
    const market = seq.market(open.pairCode);
    seq.admit();
    const outcome = seq.mutating(() => cancelOrder(seq.ledger, market, userId, orderId));
    const applied = seq.applyOutcome(market, outcome.events, outcome.entries);
    await seq.commit(applied.unit);
    return applied.orders.find((row) => row.id === orderId) ?? open;
  }

  /** Cancels every open order of the user, on one pair or on all; returns the cancelled orders. */
  async cancelAll(userId: string, pairCode?: string): Promise<OrderRow[]> {
    const seq = this.seq;
    const markets = pairCode === undefined ? [...seq.markets.values()] : [seq.market(pairCode)];
    seq.admit();
    const orders: OrderRow[] = [];
    const units: WriteUnit[] = [];
    for (const market of markets) {
      const outcome = seq.mutating(() => cancelAllOrders(seq.ledger, market, userId));
      if (outcome.events.length === 0) continue;
      const applied = seq.applyOutcome(market, outcome.events, outcome.entries);
      orders.push(...applied.orders);
      units.push(applied.unit);
    }
    // One unit for every pair: the command takes one slot of the bounded commit queue.
    if (units.length > 0) await seq.commit(mergeUnits(units));
    return orders;
  }

  /**
   * A user's orders, newest first. Open ones come from the committed view (served while the
   * database is away); closed ones are only stored.
   */
  async orders(userId: string, query: OrderQuery): Promise<Page<OrderRow>> {
    if (query.pairCode !== undefined) this.seq.reference.pair(query.pairCode);
    if (query.scope !== "open") return this.store.listOrders(userId, query);
    const open = this.openOrdersOf(userId, query.pairCode);
    return {
      items: open.slice((query.page - 1) * query.pageSize, query.page * query.pageSize),
      totalItems: open.length,
    };
  }

  /** The deals an order took part in, oldest first. */
  orderFills(orderId: string): Promise<DealRow[]> {
    return this.store.listOrderDeals(orderId);
  }

  /** A user's committed open orders, newest first. */
  openOrdersOf(userId: string, pairCode?: string): OrderRow[] {
    return this.seq.committed.openOrdersOf(userId, pairCode);
  }
}

/** Several units as one, rows in order (a later row of the same key still wins when written). */
function mergeUnits(units: readonly WriteUnit[]): WriteUnit {
  const merged = {
    orders: [],
    deals: [],
    entries: [],
    balances: [],
    fees: [],
    deposits: [],
    withdrawals: [],
    feeHolds: [],
  } as {
    [K in keyof WriteUnit]-?: NonNullable<WriteUnit[K]>[number][];
  };
  for (const unit of units)
    for (const key of Object.keys(merged) as (keyof WriteUnit)[]) (merged[key] as unknown[]).push(...(unit[key] ?? []));
  return merged;
}
