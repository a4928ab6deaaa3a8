import {
  formatAmount,
  formatCurrencyUnits,
  formatPrice,
  formatUnits,
  quoteUnitsOf,
  type PairSpec,
} from "../../core/money/index.ts";
import { decimalJson } from "../../core/money/json.ts";
import type { Exchange } from "../../application/index.ts";
import type { CommissionRow, DealRow, FeeHoldRow, OrderRow, WithdrawalRow } from "../../application/index.ts";
import { isoFromMicros, isoFromMs } from "./time.ts";

// JSON shapes of the trading and wallet API. Decimals are JSON numbers written digit for digit
// from exact integers (decimalJson), as SPEC.md's decimals are.

/** A stored page as the API answers it, each row through `view`. */
export function pageView<R, V>(
  result: { items: readonly R[]; totalItems: number },
  query: { pageNumber: number; pageSize: number },
  view: (row: R) => V,
) {
  return {
    items: result.items.map(view),
    pageNumber: query.pageNumber,
    pageSize: query.pageSize,
    totalItems: result.totalItems,
  };
}

export function orderView(exchange: Exchange, order: OrderRow, fills?: readonly DealRow[]) {
  const pair = exchange.reference.pairs.get(order.pairCode)!.spec;
  return {
    id: order.id,
    clientOrderId: order.clientOrderId,
    currencyPairCode: order.pairCode,
    isBid: order.isBid,
    type: order.type,
    timeInForce: order.timeInForce,
    postOnly: order.postOnly,
    selfTradePrevention: order.selfTradePrevention,
    price: order.priceTicks === null ? null : decimalJson(formatPrice(order.priceTicks, pair)),
    amount: decimalJson(formatAmount(order.amountLots, pair)),
    quoteAmount: order.quoteBudget === null ? null : decimalJson(formatCurrencyUnits(order.quoteBudget, pair.quote)),
    filledAmount: decimalJson(formatAmount(order.filledLots, pair)),
    filledQuoteAmount: decimalJson(formatCurrencyUnits(order.filledQuote, pair.quote)),
    remainingAmount: decimalJson(formatAmount(order.remainingLots, pair)),
    status: order.status,
    reason: order.reason,
    createdAt: isoFromMs(order.createdAt),
    updatedAt: isoFromMs(order.updatedAt),
    ...(fills === undefined ? {} : { fills: fills.map((deal) => fillView(pair, order, deal)) }),
  };
}

export function fillView(pair: PairSpec, order: OrderRow, deal: DealRow) {
  const isMaker = deal.makerOrderId === order.id;
  const received = order.isBid ? pair.base : pair.quote;
  return {
    dealId: deal.id,
    tradeId: deal.tradeSeq,
    price: decimalJson(formatPrice(deal.priceTicks, pair)),
    amount: decimalJson(formatAmount(deal.amountLots, pair)),
    quoteAmount: decimalJson(formatCurrencyUnits(quoteUnitsOf(deal.priceTicks, deal.amountLots, pair), pair.quote)),
    isMaker,
    fee: decimalJson(formatCurrencyUnits(isMaker ? deal.makerFee : deal.takerFee, received)),
    feeCurrencyCode: received.code,
    dealDateUtc: isoFromMicros(deal.executedAtUs),
  };
}

export function balanceViews(exchange: Exchange, userId: string) {
  return exchange.balances(userId).map(({ currency, available, locked }) => {
    const spec = exchange.reference.currency(currency).spec;
    return {
      currencyCode: currency,
      available: decimalJson(formatCurrencyUnits(available, spec)),
      locked: decimalJson(formatCurrencyUnits(locked, spec)),
      total: decimalJson(formatCurrencyUnits(available + locked, spec)),
    };
  });
}

/** A fee hold as the internal API answers it: the amount as decimal text in its currency. */
export function feeHoldView(exchange: Exchange, row: FeeHoldRow) {
  return {
    holdId: row.id,
    userId: row.userId,
    currency: row.currency,
    amount: formatUnits(row.amount, exchange.reference.currency(row.currency).spec.decimals, { trimZeros: true }),
    status: row.status,
    reference: row.reference,
    createdAt: isoFromMs(row.createdAt),
    resolvedAt: row.resolvedAt === null ? null : isoFromMs(row.resolvedAt),
  };
}

export function withdrawalView(exchange: Exchange, row: WithdrawalRow) {
  const spec = exchange.reference.currency(row.currency).spec;
  return {
    id: row.id,
    clientWithdrawalId: row.clientWithdrawalId,
    currencyCode: row.currency,
    amount: decimalJson(formatCurrencyUnits(row.amount, spec)),
    fee: decimalJson(formatCurrencyUnits(row.fee, spec)),
    sent: decimalJson(formatCurrencyUnits(row.amount - row.fee, spec)),
    address: row.address,
    status: row.status,
    txHash: row.txHash,
    ...(row.status === "sent" ? confirmationsOf(exchange, row.id) : {}),
    ...(row.status === "pending" ? waitingReasonOf(exchange, row.id) : {}),
    approvalRequired: row.approvalRequired,
    approvedAt: row.approvedAt === null ? null : isoFromMs(row.approvedAt),
    failureReason: row.failureReason,
    createdAt: isoFromMs(row.createdAt),
    sentAt: row.sentAt === null ? null : isoFromMs(row.sentAt),
    completedAt: row.completedAt === null ? null : isoFromMs(row.completedAt),
    failedAt: row.failedAt === null ? null : isoFromMs(row.failedAt),
  };
}

function waitingReasonOf(exchange: Exchange, id: string): { waitingReason?: string } {
  const waitingReason = exchange.withdrawalWaitingReason(id);
  return waitingReason === undefined ? {} : { waitingReason };
}

function confirmationsOf(exchange: Exchange, id: string): { confirmations?: number } {
  const confirmations = exchange.withdrawalConfirmations(id);
  return confirmations === undefined ? {} : { confirmations };
}

/** SPEC.md's type codes: "1" Refill is given; the others are ours (exchange/README.md). */
const COMMISSION_TYPE_KEYS: Record<string, string> = {
  "1": "Refill",
  "2": "Withdrawal",
  "3": "TradeMaker",
  "4": "TradeTaker",
};
const COMMISSION_TYPE_TEXT: Record<string, string> = {
  "1": "Deposit commission",
  "2": "Withdrawal commission",
  "3": "Trade commission (maker)",
  "4": "Trade commission (taker)",
};

/** SPEC.md's Commission object. */
export function commissionView(row: CommissionRow) {
  return {
    commissionId: row.commissionId,
    currencyCode: row.currencyCode,
    currencyPairCode: row.currencyPairCode,
    currencyAdapterCode: row.currencyAdapterCode,
    percent: decimalJson(row.percent),
    minimum: decimalJson(row.minimum),
    commissionCurrencyCode: row.commissionCurrencyCode,
    commissionTypeCode: row.commissionTypeCode,
    commissionType: {
      code: row.commissionTypeCode,
      value: COMMISSION_TYPE_TEXT[row.commissionTypeCode] ?? row.commissionTypeCode,
      valueKey: COMMISSION_TYPE_KEYS[row.commissionTypeCode] ?? row.commissionTypeCode,
    },
    hashCode: `${row.commissionTypeCode}_${row.currencyCode ?? ""}_${row.currencyAdapterCode ?? ""}`,
  };
}
