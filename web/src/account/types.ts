/**
 * What the wallet and order routes answer, amounts as exact decimal strings (session-api.ts).
 * Fields the deposit and withdrawal gateways add (statuses, confirmations, tx hashes) are
 * optional: the page shows what the exchange it talks to sends.
 */

export interface Page<T> {
  readonly items: T[];
  readonly pageNumber: number;
  readonly pageSize: number;
  readonly totalItems: number;
}

export interface Balance {
  readonly currencyCode: string;
  readonly available: string;
  readonly locked: string;
  readonly total: string;
}

export interface DepositAddress {
  readonly currencyCode: string;
  readonly chainId: number;
  readonly address: string;
  readonly confirmations: number;
}

export interface Deposit {
  readonly id: string;
  readonly currencyCode: string;
  readonly amount: string;
  readonly fee: string;
  readonly credited: string;
  readonly status?: "pending" | "credited";
  readonly confirmations?: number | null;
  readonly requiredConfirmations?: number | null;
  readonly txHash?: string | null;
  readonly createdAt: string;
}

export interface Withdrawal {
  readonly id: string;
  readonly clientWithdrawalId: string | null;
  readonly currencyCode: string;
  readonly amount: string;
  readonly fee: string;
  readonly sent: string;
  readonly address: string;
  readonly status: "pending" | "sent" | "completed" | "failed" | string;
  readonly txHash?: string | null;
  /** While sent: blocks deep its transaction is. */
  readonly confirmations?: number;
  /** While pending: why the exchange has not sent it yet. */
  readonly waitingReason?: string;
  readonly approvalRequired?: boolean;
  readonly approvedAt?: string | null;
  readonly failureReason?: string | null;
  readonly createdAt: string;
}

/** SPEC.md's Commission, as /api/currencies/user/commissions answers it. */
export interface Commission {
  readonly commissionId: string;
  readonly currencyCode: string | null;
  readonly currencyPairCode: string | null;
  readonly percent: string;
  readonly minimum: string;
  readonly commissionCurrencyCode: string | null;
  readonly commissionTypeCode: string;
}

/** One currency of the aggregator's /asset map: what the gateway allows. */
export interface AssetInfo {
  readonly name: string;
  readonly can_withdraw: boolean;
  readonly can_deposit: boolean;
  readonly min_withdraw: string | null;
  readonly max_withdraw: string | null;
  /** Not in the aggregator's format today; used when an exchange sends it. */
  readonly decimals?: number;
}

export interface Fill {
  readonly dealId: string;
  readonly tradeId: number;
  readonly price: string;
  readonly amount: string;
  readonly quoteAmount: string;
  readonly isMaker: boolean;
  readonly fee: string;
  readonly feeCurrencyCode: string;
  readonly dealDateUtc: string;
}

export interface Order {
  readonly id: string;
  readonly clientOrderId: string | null;
  readonly currencyPairCode: string;
  readonly isBid: boolean;
  readonly type: "limit" | "market";
  readonly timeInForce: "GTC" | "IOC" | "FOK";
  readonly postOnly: boolean;
  readonly price: string | null;
  readonly amount: string;
  readonly filledAmount: string;
  readonly filledQuoteAmount: string;
  readonly remainingAmount: string;
  readonly status: "open" | "filled" | "cancelled" | "rejected";
  readonly reason: string | null;
  readonly createdAt: string;
  readonly fills?: Fill[];
}
