import type {
  ApiKeyRow,
  BalanceRow,
  CommissionRow,
  CurrencyRow,
  DealRow,
  DepositRow,
  FeeHoldRow,
  OrderRow,
  PairRow,
  UserRow,
  WebSessionRow,
  WithdrawalRow,
} from "./types.ts";

// Column lists and record -> row mappers. Every bigint and numeric column is selected as text
// (`::text`), so neither driver ever turns money or a 64-bit integer into a float.

type Text = string;

/** A record as the driver returns it: untyped until one of the *Of mappers below reads it. */
// biome-ignore lint/suspicious/noExplicitAny: the mappers are where driver rows get their types
export type DriverRow = Record<string, any>;

export const DEAL_COLUMNS = `id, pair_code, trade_seq::text as trade_seq, price_ticks::text as price_ticks, amount_lots::text as amount_lots,
  taker_is_bid, maker_order_id, taker_order_id, maker_user_id, taker_user_id,
  maker_fee::text as maker_fee, taker_fee::text as taker_fee, executed_at_us::text as executed_at_us`;

export interface DealRecord {
  id: string;
  pair_code: string;
  trade_seq: Text;
  price_ticks: Text;
  amount_lots: Text;
  taker_is_bid: boolean;
  maker_order_id: string;
  taker_order_id: string;
  maker_user_id: string;
  taker_user_id: string;
  maker_fee: Text;
  taker_fee: Text;
  executed_at_us: Text;
}

export function dealOf(record: DealRecord): DealRow {
  return {
    id: record.id,
    pairCode: record.pair_code,
    tradeSeq: Number(record.trade_seq),
    priceTicks: Number(record.price_ticks),
    amountLots: Number(record.amount_lots),
    takerIsBid: record.taker_is_bid,
    makerOrderId: record.maker_order_id,
    takerOrderId: record.taker_order_id,
    makerUserId: record.maker_user_id,
    takerUserId: record.taker_user_id,
    makerFee: BigInt(record.maker_fee),
    takerFee: BigInt(record.taker_fee),
    executedAtUs: Number(record.executed_at_us),
  };
}

export const ORDER_COLUMNS = `id, user_id, pair_code, client_order_id, is_bid, type, time_in_force, post_only, self_trade_prevention,
  price_ticks::text as price_ticks, amount_lots::text as amount_lots, quote_budget::text as quote_budget, filled_lots::text as filled_lots,
  remaining_lots::text as remaining_lots, filled_quote::text as filled_quote, status, reason, seq::text as seq,
  created_at::text as created_at, updated_at::text as updated_at`;

export interface OrderRecord {
  id: string;
  user_id: string;
  pair_code: string;
  client_order_id: string | null;
  is_bid: boolean;
  type: OrderRow["type"];
  time_in_force: OrderRow["timeInForce"];
  post_only: boolean;
  self_trade_prevention: OrderRow["selfTradePrevention"];
  price_ticks: Text | null;
  amount_lots: Text;
  quote_budget: Text | null;
  filled_lots: Text;
  remaining_lots: Text;
  filled_quote: Text;
  status: OrderRow["status"];
  reason: string | null;
  seq: Text;
  created_at: Text;
  updated_at: Text;
}

export function orderOf(record: OrderRecord): OrderRow {
  return {
    id: record.id,
    userId: record.user_id,
    pairCode: record.pair_code,
    clientOrderId: record.client_order_id,
    isBid: record.is_bid,
    type: record.type,
    timeInForce: record.time_in_force,
    postOnly: record.post_only,
    selfTradePrevention: record.self_trade_prevention,
    priceTicks: record.price_ticks === null ? null : Number(record.price_ticks),
    amountLots: Number(record.amount_lots),
    quoteBudget: record.quote_budget === null ? null : BigInt(record.quote_budget),
    filledLots: Number(record.filled_lots),
    remainingLots: Number(record.remaining_lots),
    filledQuote: BigInt(record.filled_quote),
    status: record.status,
    reason: record.reason,
    seq: Number(record.seq),
    createdAt: Number(record.created_at),
    updatedAt: Number(record.updated_at),
  };
}

/** An order as the JSON record `json_to_recordset` reads (bigints as text). */
export function orderRecord(row: OrderRow): OrderRecord {
  return {
    id: row.id,
    user_id: row.userId,
    pair_code: row.pairCode,
    client_order_id: row.clientOrderId,
    is_bid: row.isBid,
    type: row.type,
    time_in_force: row.timeInForce,
    post_only: row.postOnly,
    self_trade_prevention: row.selfTradePrevention,
    price_ticks: row.priceTicks === null ? null : String(row.priceTicks),
    amount_lots: String(row.amountLots),
    quote_budget: row.quoteBudget === null ? null : row.quoteBudget.toString(),
    filled_lots: String(row.filledLots),
    remaining_lots: String(row.remainingLots),
    filled_quote: row.filledQuote.toString(),
    status: row.status,
    reason: row.reason,
    seq: String(row.seq),
    created_at: String(row.createdAt),
    updated_at: String(row.updatedAt),
  };
}

export function dealRecord(row: DealRow): DealRecord {
  return {
    id: row.id,
    pair_code: row.pairCode,
    trade_seq: String(row.tradeSeq),
    price_ticks: String(row.priceTicks),
    amount_lots: String(row.amountLots),
    taker_is_bid: row.takerIsBid,
    maker_order_id: row.makerOrderId,
    taker_order_id: row.takerOrderId,
    maker_user_id: row.makerUserId,
    taker_user_id: row.takerUserId,
    maker_fee: row.makerFee.toString(),
    taker_fee: row.takerFee.toString(),
    executed_at_us: String(row.executedAtUs),
  };
}

export const CURRENCY_COLUMNS = `code, name, decimals, can_deposit, can_withdraw, min_withdraw, max_withdraw, unified_cryptoasset_id, adapter_code, position, contract_address,
  daily_withdraw_limit, withdraw_approval_threshold`;

export function currencyOf(r: DriverRow): CurrencyRow {
  return {
    code: r.code,
    name: r.name,
    decimals: Number(r.decimals),
    canDeposit: r.can_deposit,
    canWithdraw: r.can_withdraw,
    minWithdraw: r.min_withdraw,
    maxWithdraw: r.max_withdraw,
    unifiedCryptoassetId: r.unified_cryptoasset_id === null ? null : Number(r.unified_cryptoasset_id),
    adapterCode: r.adapter_code,
    position: Number(r.position),
    // Only listed tokens have one: the other rows read back as they were written.
    ...(r.contract_address == null ? {} : { contractAddress: r.contract_address as string }),
    // Likewise the withdrawal limits (migration 7): absent when not configured.
    ...(r.daily_withdraw_limit == null ? {} : { dailyWithdrawLimit: r.daily_withdraw_limit as string }),
    ...(r.withdraw_approval_threshold == null
      ? {}
      : { withdrawApprovalThreshold: r.withdraw_approval_threshold as string }),
  };
}

export const PAIR_COLUMNS = `code, base, quote, digits_price, digits_amount, min_quote_amount, active`;

export function pairOf(r: DriverRow): PairRow {
  return {
    code: r.code,
    base: r.base,
    quote: r.quote,
    digitsPrice: Number(r.digits_price),
    digitsAmount: Number(r.digits_amount),
    minQuoteAmount: r.min_quote_amount,
    active: r.active,
  };
}

export const COMMISSION_COLUMNS = `commission_id::text as commission_id, currency_code, currency_pair_code, currency_adapter_code, percent, minimum,
  commission_currency_code, commission_type_code, min_level`;

export function commissionOf(r: DriverRow): CommissionRow {
  return {
    commissionId: r.commission_id,
    currencyCode: r.currency_code,
    currencyPairCode: r.currency_pair_code,
    currencyAdapterCode: r.currency_adapter_code,
    percent: r.percent,
    minimum: r.minimum,
    commissionCurrencyCode: r.commission_currency_code,
    commissionTypeCode: r.commission_type_code,
    minLevel: Number(r.min_level),
  };
}

export const USER_COLUMNS = `id::text as id, level, address, created_at::text as created_at`;

export function userOf(r: DriverRow): UserRow {
  return { id: r.id, level: Number(r.level), address: r.address, createdAt: Number(r.created_at) };
}

export const API_KEY_COLUMNS = `public_key, user_id::text as user_id, private_key_encrypted, created_at::text as created_at, revoked_at::text as revoked_at, last_used_at::text as last_used_at`;

export function apiKeyOf(r: DriverRow): ApiKeyRow {
  return {
    publicKey: r.public_key,
    userId: r.user_id,
    privateKeyEncrypted: r.private_key_encrypted,
    createdAt: Number(r.created_at),
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
    lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
  };
}

export const WEB_SESSION_COLUMNS = `token_hash, user_id::text as user_id, created_at::text as created_at, expires_at::text as expires_at, revoked_at::text as revoked_at`;

export function webSessionOf(r: DriverRow): WebSessionRow {
  return {
    tokenHash: r.token_hash,
    userId: r.user_id,
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
  };
}

export function balanceOf(r: DriverRow): BalanceRow {
  return { userId: r.user_id, currency: r.currency, available: BigInt(r.available), locked: BigInt(r.locked) };
}

export const DEPOSIT_COLUMNS = `id, user_id::text as user_id, currency, amount::text as amount, fee::text as fee, reference, created_at::text as created_at`;

export function depositOf(r: DriverRow): DepositRow {
  return {
    id: r.id,
    userId: r.user_id,
    currency: r.currency,
    amount: BigInt(r.amount),
    fee: BigInt(r.fee),
    reference: r.reference,
    createdAt: Number(r.created_at),
  };
}

export const WITHDRAWAL_COLUMNS = `id::text as id, user_id::text as user_id, client_withdrawal_id, currency, amount::text as amount, fee::text as fee, address, status,
  created_at::text as created_at, tx_hash, sent_at::text as sent_at, completed_at::text as completed_at, failed_at::text as failed_at,
  failure_reason, approval_required, approved_at::text as approved_at`;

const msOrNull = (value: unknown): number | null => (value == null ? null : Number(value));

export function withdrawalOf(r: DriverRow): WithdrawalRow {
  return {
    id: r.id,
    userId: r.user_id,
    clientWithdrawalId: r.client_withdrawal_id,
    currency: r.currency,
    amount: BigInt(r.amount),
    fee: BigInt(r.fee),
    address: r.address,
    status: r.status,
    createdAt: Number(r.created_at),
    txHash: r.tx_hash ?? null,
    sentAt: msOrNull(r.sent_at),
    completedAt: msOrNull(r.completed_at),
    failedAt: msOrNull(r.failed_at),
    failureReason: r.failure_reason ?? null,
    approvalRequired: r.approval_required === true,
    approvedAt: msOrNull(r.approved_at),
  };
}

export const FEE_HOLD_COLUMNS = `id::text as id, user_id::text as user_id, currency, amount::text as amount, status, reference, memo,
  created_at::text as created_at, resolved_at::text as resolved_at`;

export function feeHoldOf(r: DriverRow): FeeHoldRow {
  return {
    id: r.id,
    userId: r.user_id,
    currency: r.currency,
    amount: BigInt(r.amount),
    status: r.status,
    reference: r.reference,
    memo: r.memo,
    createdAt: Number(r.created_at),
    resolvedAt: r.resolved_at === null ? null : Number(r.resolved_at),
  };
}
