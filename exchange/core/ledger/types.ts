// Ledger state and its entries. Amounts are bigint base units of their currency
// (10^-decimals of a coin), never floats.

export interface Balance {
  readonly available: bigint;
  /** Sum of this user's holds in this currency: funds promised to open orders and fee holds. */
  readonly locked: bigint;
}

/**
 * Funds locked for one open order or one fee hold; locked balances are exactly the sum of these.
 * Keyed by the order id, or by feeHoldKey(holdId) (`fee:<holdId>`) for a fee hold.
 */
export interface Hold {
  /** The order id, or `fee:<holdId>` for a fee hold (order ids are UUIDs, so the two never meet). */
  readonly orderId: string;
  readonly userId: string;
  readonly currency: string;
  readonly amount: bigint;
}

export interface LedgerState {
  readonly balances: Map<string, Map<string, Balance>>;
  readonly holds: Map<string, Hold>;
  /** Commissions and withdrawal fees the exchange has earned, per currency. */
  readonly fees: Map<string, bigint>;
  /**
   * Settled fee holds, per currency: paid for on-chain actions with the native token, which was
   * burned there. Value that left the exchange, as withdrawals did: not part of supply.
   */
  readonly burned: Map<string, bigint>;
  /**
   * What the exchange holds per currency (deposits less what withdrawals sent out): every
   * balance, hold and fee total is a part of it, so bounding it bounds them all.
   */
  readonly supply: Map<string, bigint>;
}

/**
 * Where a posting moves value. "external" is the world outside the exchange: deposits
 * come from it and withdrawals go to it, so every entry balances to zero per currency.
 * "fee-hold" is a locked amount like an order's, held for an on-chain action's fee; "burned" is
 * where a settled fee goes: it left the exchange (the native token was burned on-chain), so like
 * "external" it lowers supply, but it is counted apart so reconciliation can show it.
 */
export type Account =
  | { readonly kind: "available"; readonly userId: string }
  | { readonly kind: "locked"; readonly userId: string; readonly orderId: string }
  | { readonly kind: "fee-hold"; readonly userId: string; readonly holdId: string }
  | { readonly kind: "fees" }
  | { readonly kind: "burned" }
  | { readonly kind: "external" };

export interface Posting {
  readonly account: Account;
  readonly currency: string;
  readonly delta: bigint;
}

export type EntryKind =
  | "deposit"
  | "withdrawal"
  | "withdrawal-refund"
  | "order-hold"
  | "order-release"
  | "trade"
  | "fee-hold"
  | "fee-settle"
  | "fee-release";

/** One ledger entry: what storage writes in the same transaction as the order or deal. */
export interface Entry {
  readonly kind: EntryKind;
  /** deposit or withdrawal id, order id, deal id, or fee hold id. */
  readonly ref: string;
  readonly postings: readonly Posting[];
}

export type LedgerRejectCode =
  | "INVALID_AMOUNT"
  | "INVALID_ORDER"
  | "INSUFFICIENT_FUNDS"
  | "AMOUNT_BELOW_FEE"
  | "QUOTE_BUDGET_REQUIRED"
  | "BELOW_MIN_QUOTE_AMOUNT"
  | "DUPLICATE_ORDER_ID"
  | "DUPLICATE_HOLD_ID"
  | "NO_OPEN_HOLD"
  | "OUT_OF_RANGE";
