import type { OrderRow } from "../../exchange/application/index.ts";

/**
 * An open limit bid as the store holds it, with `patch` applied: the one OrderRow fixture of the
 * store and service tests. The user is a UUID and the pair the demo's, so it can be written to a
 * migrated database as is.
 */
export function orderRow(id: string, patch: Partial<OrderRow> = {}): OrderRow {
  return {
    id,
    userId: "00000000-0000-4000-8000-000000000001",
    pairCode: "ALPHA_USDT",
    clientOrderId: null,
    isBid: true,
    type: "limit",
    timeInForce: "GTC",
    postOnly: false,
    selfTradePrevention: "cancel_taker",
    priceTicks: 5000,
    amountLots: 100,
    quoteBudget: null,
    filledLots: 0,
    remainingLots: 100,
    filledQuote: 0n,
    status: "open",
    reason: null,
    seq: 1,
    createdAt: 1,
    updatedAt: 1,
    ...patch,
  };
}
