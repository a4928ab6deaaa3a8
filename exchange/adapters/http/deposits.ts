import { decimalJson, formatCurrencyUnits } from "../../core/money/index.ts";
import type { DepositRow, Exchange } from "../../application/index.ts";
import type { ChainGateway, PendingDepositView } from "../chain/index.ts";
import { isoFromMs } from "./time.ts";

// GET /api/deposits: the watcher's pending deposits (in memory, newest first) and then the
// credited ones from the store, as one list paged as one. Pending deposits are few (they live
// for a few blocks), so a page is at most two store pages.

export function creditedDepositView(exchange: Exchange, gateway: ChainGateway | undefined, row: DepositRow) {
  const spec = exchange.reference.currency(row.currency).spec;
  const fromChain = gateway?.isChainDeposit(row.id) === true;
  return {
    id: row.id,
    currencyCode: row.currency,
    amount: decimalJson(formatCurrencyUnits(row.amount, spec)),
    fee: decimalJson(formatCurrencyUnits(row.fee, spec)),
    credited: decimalJson(formatCurrencyUnits(row.amount - row.fee, spec)),
    reference: row.reference,
    status: "credited" as const,
    txHash: fromChain ? row.reference : null,
    confirmations: fromChain ? gateway.confirmations : null,
    requiredConfirmations: fromChain ? gateway.confirmations : null,
    createdAt: isoFromMs(row.createdAt),
  };
}

export function pendingDepositView(exchange: Exchange, pending: PendingDepositView) {
  const spec = exchange.reference.currency(pending.currency).spec;
  return {
    id: pending.id,
    currencyCode: pending.currency,
    amount: decimalJson(formatCurrencyUnits(pending.amount, spec)),
    fee: 0,
    credited: 0,
    reference: pending.txHash,
    status: "pending" as const,
    txHash: pending.txHash,
    confirmations: pending.confirmations,
    requiredConfirmations: pending.requiredConfirmations,
    createdAt: isoFromMs(pending.seenAt),
  };
}

export async function depositsWithPending(
  exchange: Exchange,
  gateway: ChainGateway | undefined,
  userId: string,
  query: { pageNumber: number; pageSize: number },
) {
  const pending = gateway?.pendingDeposits(userId) ?? [];
  const { pageNumber, pageSize } = query;
  const start = (pageNumber - 1) * pageSize;
  const items: ReturnType<typeof pendingDepositView | typeof creditedDepositView>[] = pending
    .slice(start, start + pageSize)
    .map((p) => pendingDepositView(exchange, p));
  // Credited rows [from, from + want) of the store's newest-first list.
  const from = Math.max(0, start - pending.length);
  const want = pageSize - items.length;
  let totalCredited: number;
  if (want > 0) {
    const first = Math.floor(from / pageSize) + 1;
    const page = await exchange.deposits(userId, first, pageSize);
    totalCredited = page.totalItems;
    let rows = page.items.slice(from - (first - 1) * pageSize);
    if (rows.length < want && first * pageSize < page.totalItems)
      rows = rows.concat((await exchange.deposits(userId, first + 1, pageSize)).items);
    items.push(...rows.slice(0, want).map((row) => creditedDepositView(exchange, gateway, row)));
  } else totalCredited = (await exchange.deposits(userId, 1, 1)).totalItems;
  return { items, pageNumber, pageSize, totalItems: pending.length + totalCredited };
}
