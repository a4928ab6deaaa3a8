import { formatAmount, formatCurrencyUnits, formatPrice } from "../../core/money/index.ts";
import { decimalJson } from "../../core/money/json.ts";
import type { CommittedView, DealRow, Exchange, OrderRow, WriteUnit } from "../../application/index.ts";
import { fillView, orderView } from "../http/views.ts";

/**
 * What one committed batch means to stream clients: each deal on `<PAIR>@trade`, one diff per
 * changed book on `<PAIR>@depth`, and each user's order updates, fills and balances on their user
 * stream. Built from the batch's rows and the committed view as of that batch, so only committed
 * commands are published, in commit order.
 */

export interface Envelope {
  /** The stream name: `ETH_USDT@trade`, `ETH_USDT@depth`, `ETH_USDT@ticker`, `!ticker@arr`, or `user:<userId>`. */
  readonly stream: string;
  readonly data: unknown;
}

/** The user stream's internal name; a client receives it as stream "user". */
export const userStream = (userId: string) => `user:${userId}`;

/** Price levels as `[price, amount]` exact decimal strings; amount "0" removes the level. */
export type Level = readonly [string, string];

export class MarketFeed {
  private readonly exchange: Exchange;
  /** Per pair, the update id the last depth event ended at (its `u`). */
  private readonly lastUpdateId = new Map<string, number>();

  constructor(exchange: Exchange) {
    this.exchange = exchange;
    this.resetUpdateIds();
  }

  /**
   * After a reload the view's update ids moved on (CommittedView.of): the next diff starts past
   * the gap, so a client following the documented procedure sees it and resyncs.
   */
  resetUpdateIds(): void {
    for (const code of this.exchange.reference.pairs.keys())
      this.lastUpdateId.set(code, this.exchange.committed.updateId(code));
  }

  /**
   * The envelopes of one committed batch, in publishing order; those of streams nobody wants are
   * not built (the depth update ids still move on).
   */
  batch(units: readonly WriteUnit[], nowMs: number, wanted: (stream: string) => boolean = () => true): Envelope[] {
    const view = this.exchange.committed;
    const out: Envelope[] = [];
    const levels = new Map<string, { bids: Set<number>; asks: Set<number> }>();
    for (const unit of units) {
      for (const deal of unit.deals ?? [])
        if (wanted(`${deal.pairCode}@trade`))
          out.push({ stream: `${deal.pairCode}@trade`, data: this.trade(deal, nowMs) });
      for (const row of unit.orders ?? []) {
        if (row.priceTicks === null) continue;
        let pair = levels.get(row.pairCode);
        if (pair === undefined) {
          pair = { bids: new Set(), asks: new Set() };
          levels.set(row.pairCode, pair);
        }
        (row.isBid ? pair.bids : pair.asks).add(row.priceTicks);
      }
    }
    for (const [code, touched] of levels) {
      const depth = this.depth(view, code, touched, nowMs, wanted(`${code}@depth`));
      if (depth) out.push({ stream: `${code}@depth`, data: depth });
    }
    for (const unit of units) out.push(...this.userEvents(unit, nowMs, wanted));
    return out;
  }

  private trade(deal: DealRow, nowMs: number) {
    const spec = this.exchange.reference.pair(deal.pairCode).spec;
    return {
      e: "trade",
      E: nowMs,
      s: deal.pairCode,
      t: deal.tradeSeq,
      id: deal.id,
      p: formatPrice(deal.priceTicks, spec),
      q: formatAmount(deal.amountLots, spec),
      side: deal.takerIsBid ? "buy" : "sell",
      T: Math.floor(deal.executedAtUs / 1000),
      m: !deal.takerIsBid,
    };
  }

  private depth(
    view: CommittedView,
    code: string,
    touched: { bids: Set<number>; asks: Set<number> },
    nowMs: number,
    wanted: boolean,
  ) {
    const u = view.updateId(code);
    const before = this.lastUpdateId.get(code) ?? 0;
    if (u === before) return undefined;
    this.lastUpdateId.set(code, u);
    if (!wanted) return undefined;
    const spec = this.exchange.reference.pair(code).spec;
    const side = (isBid: boolean, prices: Set<number>): Level[] =>
      [...prices]
        .sort((a, b) => (isBid ? b - a : a - b))
        .map((price) => {
          const lots = view.levelLots(code, isBid, price);
          return [formatPrice(price, spec), lots === 0n ? "0" : formatAmount(lots, spec)];
        });
    return {
      e: "depthUpdate",
      E: nowMs,
      s: code,
      U: before + 1,
      u,
      b: side(true, touched.bids),
      a: side(false, touched.asks),
    };
  }

  private userEvents(unit: WriteUnit, nowMs: number, wanted: (stream: string) => boolean): Envelope[] {
    const out: Envelope[] = [];
    const orders = new Map<string, OrderRow>();
    for (const row of unit.orders ?? []) {
      orders.set(row.id, row);
      if (wanted(userStream(row.userId)))
        out.push({ stream: userStream(row.userId), data: { e: "order", E: nowMs, ...orderView(this.exchange, row) } });
    }
    for (const deal of unit.deals ?? [])
      for (const [userId, orderId] of [
        [deal.makerUserId, deal.makerOrderId],
        [deal.takerUserId, deal.takerOrderId],
      ] as const) {
        if (!wanted(userStream(userId))) continue;
        const order = orders.get(orderId) ?? this.exchange.committed.openOrder(orderId);
        if (order === undefined) continue;
        const spec = this.exchange.reference.pair(deal.pairCode).spec;
        out.push({
          stream: userStream(userId),
          data: { e: "fill", E: nowMs, orderId, currencyPairCode: deal.pairCode, ...fillView(spec, order, deal) },
        });
      }
    for (const row of unit.balances ?? []) {
      if (!wanted(userStream(row.userId))) continue;
      const spec = this.exchange.reference.currency(row.currency).spec;
      out.push({
        stream: userStream(row.userId),
        data: {
          e: "balance",
          E: nowMs,
          currencyCode: row.currency,
          available: decimalJson(formatCurrencyUnits(row.available, spec)),
          locked: decimalJson(formatCurrencyUnits(row.locked, spec)),
          total: decimalJson(formatCurrencyUnits(row.available + row.locked, spec)),
        },
      });
    }
    return out;
  }
}
