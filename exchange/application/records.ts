import type { CommissionRecord, Entry, FeeHoldStatus } from "../core/ledger/index.ts";

// The records the application keeps and the store persists: the data half of the store port
// (ports.ts). Declared here, by the application, so the store adapter depends on it and not the
// other way round.
// Amounts that are money are bigint base units; ticks and lots are safe integers; times are
// epoch milliseconds except deal execution times, which are epoch microseconds (SPEC.md's
// dealDateUtc carries sub-millisecond digits).

// ---------------------------------------------------------------------------------------------
// Reference data (changed by the admin, read at start-up)

export interface CurrencyRow {
  readonly code: string;
  readonly name: string;
  readonly decimals: number;
  readonly canDeposit: boolean;
  readonly canWithdraw: boolean;
  /** Decimal text in whole coins; null when not configured / no upper bound. */
  readonly minWithdraw: string | null;
  readonly maxWithdraw: string | null;
  readonly unifiedCryptoassetId: number | null;
  /** Blockchain or fiat adapter code (SPEC.md currencyAdapterCode); null when none. */
  readonly adapterCode: string | null;
  /** Display order. */
  readonly position: number;
  /**
   * The token contract (lower-case 0x hex) of a listed spawned agent token (migration 6); null or
   * absent for currencies set up otherwise (the demo's fixed ones, the native asset).
   */
  readonly contractAddress?: string | null;
  /**
   * Most a user may withdraw of it in any 24 h (decimal text in whole coins, failed withdrawals
   * not counted); null or absent: no daily limit (migration 7).
   */
  readonly dailyWithdrawLimit?: string | null;
  /** Withdrawals above this amount (decimal text) wait for an operator's approval; null or absent: none do. */
  readonly withdrawApprovalThreshold?: string | null;
}

export interface PairRow {
  readonly code: string;
  readonly base: string;
  readonly quote: string;
  readonly digitsPrice: number;
  readonly digitsAmount: number;
  /** Decimal text in the quote currency; null when there is no minimum. */
  readonly minQuoteAmount: string | null;
  readonly active: boolean;
}

/** SPEC.md's commission row as stored, with the user tier it applies from. */
export interface CommissionRow extends CommissionRecord {
  /** The row applies to users whose level is at least this; 0 = the default commissions. */
  readonly minLevel: number;
}

/** What listing a spawned agent token writes, in one transaction (ExchangeStore.insertListing). */
export interface TokenListingRows {
  readonly currency: CurrencyRow & { readonly contractAddress: string };
  readonly pair: PairRow;
  readonly commissions: readonly CommissionRow[];
}

export interface UserRow {
  readonly id: string;
  readonly level: number;
  /** Linked chain address, lower-case 0x hex; null when none. */
  readonly address: string | null;
  readonly createdAt: number;
}

/** A signed-in web session; the token itself is only ever in the user's cookie. */
export interface WebSessionRow {
  /** SHA-256 (hex) of the session token. */
  readonly tokenHash: string;
  readonly userId: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly revokedAt: number | null;
}

export interface ApiKeyRow {
  readonly publicKey: string;
  readonly userId: string;
  /** The private key encrypted with the server key (exchange/adapters/auth); never the plain key. */
  readonly privateKeyEncrypted: string;
  readonly createdAt: number;
  readonly revokedAt: number | null;
  /** When it last signed an accepted request, as last written (null: never, or not yet written). */
  readonly lastUsedAt: number | null;
}

// ---------------------------------------------------------------------------------------------
// Trading state (written by the committer, one WriteUnit per accepted command)

export type OrderStatus = "open" | "filled" | "cancelled" | "rejected";

export interface OrderRow {
  readonly id: string;
  readonly userId: string;
  readonly pairCode: string;
  readonly clientOrderId: string | null;
  readonly isBid: boolean;
  readonly type: "limit" | "market";
  readonly timeInForce: "GTC" | "IOC" | "FOK";
  readonly postOnly: boolean;
  readonly selfTradePrevention: "cancel_resting" | "cancel_taker";
  /** Ticks; null for market orders. */
  readonly priceTicks: number | null;
  readonly amountLots: number;
  /** Market buys: quote base units locked as the budget. */
  readonly quoteBudget: bigint | null;
  readonly filledLots: number;
  readonly remainingLots: number;
  /** Quote base units spent (bids) or received before fees (asks), for average price. */
  readonly filledQuote: bigint;
  readonly status: OrderStatus;
  /** Why it ended without a full fill, or why it was rejected (a stable code); null otherwise. */
  readonly reason: string | null;
  /** Global arrival order: resting orders are put back on the book in this order on restart. */
  readonly seq: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface DealRow {
  /** dealId(pairCode, tradeSeq), a UUID. */
  readonly id: string;
  readonly pairCode: string;
  /** Per pair, strictly increasing (the aggregator trade_id). */
  readonly tradeSeq: number;
  readonly priceTicks: number;
  readonly amountLots: number;
  /** true when the taker bought (SPEC.md Deal.isBuy). */
  readonly takerIsBid: boolean;
  readonly makerOrderId: string;
  readonly takerOrderId: string;
  readonly makerUserId: string;
  readonly takerUserId: string;
  /** Fees in base units of the currency each side received. */
  readonly makerFee: bigint;
  readonly takerFee: bigint;
  /** Epoch microseconds. */
  readonly executedAtUs: number;
}

export interface BalanceRow {
  readonly userId: string;
  readonly currency: string;
  readonly available: bigint;
  readonly locked: bigint;
}

export interface FeeTotalRow {
  readonly currency: string;
  readonly amount: bigint;
}

export interface DepositRow {
  readonly id: string;
  readonly userId: string;
  readonly currency: string;
  readonly amount: bigint;
  readonly fee: bigint;
  /** Where it came from: a chain tx hash, "admin", ... */
  readonly reference: string | null;
  readonly createdAt: number;
}

/**
 * pending: debited, not sent (waiting for the sender, or for an operator when approvalRequired);
 * sent: its transaction is broadcast (txHash); completed: mined and DEPOSIT_CONFIRMATIONS deep;
 * failed: reverted, dropped or rejected, and refunded (amount and fee back to available).
 */
export type WithdrawalStatus = "pending" | "sent" | "completed" | "failed";

export interface WithdrawalRow {
  readonly id: string;
  readonly userId: string;
  /** The client's idempotency key, unique per user; null when none was sent. */
  readonly clientWithdrawalId: string | null;
  readonly currency: string;
  readonly amount: bigint;
  readonly fee: bigint;
  readonly address: string;
  readonly status: WithdrawalStatus;
  readonly createdAt: number;
  /** The transaction that carries it (the mined one once completed); null until sent. */
  readonly txHash: string | null;
  readonly sentAt: number | null;
  readonly completedAt: number | null;
  readonly failedAt: number | null;
  /** Why it failed (reverted, dropped, rejected by an operator, ...); null otherwise. */
  readonly failureReason: string | null;
  /** Above the currency's approval threshold: not sent before an operator approves it. */
  readonly approvalRequired: boolean;
  readonly approvedAt: number | null;
}

/** A fee held from a user's balance for an on-chain action (see core/ledger/fee-holds.ts). */
export interface FeeHoldRow {
  /** The caller's UUID, lower-case. */
  readonly id: string;
  readonly userId: string;
  readonly currency: string;
  /** Base units of the currency. */
  readonly amount: bigint;
  readonly status: FeeHoldStatus;
  /** What settled it (the transaction hash); null while held, when released, or when none was given. */
  readonly reference: string | null;
  /** The caller's note (what the fee is for); stored, not interpreted. */
  readonly memo: string | null;
  readonly createdAt: number;
  /** When it was settled or released; null while held. */
  readonly resolvedAt: number | null;
}

/** Everything one accepted command changed; the committer writes units in order, many per transaction. */
export interface WriteUnit {
  /** Full rows after the command: inserted, or updated by id. */
  readonly orders?: readonly OrderRow[];
  readonly deals?: readonly DealRow[];
  /** The ledger's entries, in order. */
  readonly entries?: readonly Entry[];
  /** Final values of every (user, currency) the command touched. */
  readonly balances?: readonly BalanceRow[];
  /** Final totals of every fee currency the command touched. */
  readonly fees?: readonly FeeTotalRow[];
  readonly deposits?: readonly DepositRow[];
  readonly withdrawals?: readonly WithdrawalRow[];
  /** Full rows after the command: inserted, or updated by id. */
  readonly feeHolds?: readonly FeeHoldRow[];
}

/** What start-up needs to rebuild the ledger and the books exactly as they were. */
export interface LoadedState {
  readonly currencies: CurrencyRow[];
  readonly pairs: PairRow[];
  readonly commissions: CommissionRow[];
  readonly users: UserRow[];
  readonly apiKeys: ApiKeyRow[];
  /** Web sessions not revoked (expired ones included: the application drops them). */
  readonly webSessions: WebSessionRow[];
  readonly balances: BalanceRow[];
  readonly fees: FeeTotalRow[];
  /** Orders with status open, by seq ascending. */
  readonly openOrders: OrderRow[];
  /** Fee holds with status held, oldest first. */
  readonly openFeeHolds: FeeHoldRow[];
  /** Per currency, the sum of settled fee holds (what was burned). */
  readonly burned: FeeTotalRow[];
  /** Highest tradeSeq per pair code (pairs without deals are absent). */
  readonly lastTradeSeq: Map<string, number>;
  /** Highest order seq, 0 when none. */
  readonly lastOrderSeq: number;
}

/** One page of a list and how many items all pages hold. */
export interface Page<T> {
  readonly items: T[];
  readonly totalItems: number;
}
