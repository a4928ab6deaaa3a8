import {
  API_KEY_COLUMNS,
  WEB_SESSION_COLUMNS,
  webSessionOf,
  apiKeyOf,
  balanceOf,
  COMMISSION_COLUMNS,
  commissionOf,
  CURRENCY_COLUMNS,
  currencyOf,
  DEAL_COLUMNS,
  dealOf,
  DEPOSIT_COLUMNS,
  depositOf,
  FEE_HOLD_COLUMNS,
  feeHoldOf,
  ORDER_COLUMNS,
  orderOf,
  PAIR_COLUMNS,
  pairOf,
  USER_COLUMNS,
  userOf,
  WITHDRAWAL_COLUMNS,
  withdrawalOf,
  type DealRecord,
  type DriverRow,
  type OrderRecord,
} from "./rows.ts";
import type { WalletFlows } from "../../application/ports.ts";
import type {
  DealRow,
  DepositRow,
  FeeHoldRow,
  LoadedState,
  OrderRow,
  Page,
  Queryable,
  WithdrawalRow,
  WithdrawalStatus,
} from "./types.ts";

/** Per currency, what settled fee holds burned. */
const BURNED_SQL = `select currency, sum(amount)::text as total from fee_holds where status = 'settled' group by currency`;

/** Everything start-up needs, read in one transaction so it is one consistent snapshot. */
export async function loadState(db: {
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
}): Promise<LoadedState> {
  return db.transaction(async (tx) => {
    const all = (sql: string) => tx.query<DriverRow>(sql);
    const [
      currencies,
      pairs,
      commissions,
      users,
      apiKeys,
      webSessions,
      balances,
      fees,
      openOrders,
      lastTrades,
      lastOrder,
      openFeeHolds,
      burned,
    ] = [
      await all(`select ${CURRENCY_COLUMNS} from currencies order by position, code`),
      await all(`select ${PAIR_COLUMNS} from pairs order by code`),
      await all(`select ${COMMISSION_COLUMNS} from commissions order by position`),
      await all(`select ${USER_COLUMNS} from users`),
      await all(`select ${API_KEY_COLUMNS} from api_keys`),
      await all(`select ${WEB_SESSION_COLUMNS} from web_sessions where revoked_at is null`),
      await all(
        `select user_id::text as user_id, currency, available::text as available, locked::text as locked from balances`,
      ),
      await all(`select currency, amount::text as amount from fee_totals`),
      await all(`select ${ORDER_COLUMNS} from orders where status = 'open' order by seq`),
      await all(`select pair_code, max(trade_seq)::text as last from deals group by pair_code`),
      await all(`select coalesce(max(seq), 0)::text as last from orders`),
      await all(`select ${FEE_HOLD_COLUMNS} from fee_holds where status = 'held' order by created_at, id`),
      await all(BURNED_SQL),
    ];
    return {
      currencies: currencies.map(currencyOf),
      pairs: pairs.map(pairOf),
      commissions: commissions.map(commissionOf),
      users: users.map(userOf),
      apiKeys: apiKeys.map(apiKeyOf),
      webSessions: webSessions.map(webSessionOf),
      balances: balances.map(balanceOf),
      fees: fees.map((r) => ({ currency: r.currency, amount: BigInt(r.amount) })),
      openOrders: openOrders.map((r) => orderOf(r as OrderRecord)),
      lastTradeSeq: new Map(lastTrades.map((r) => [r.pair_code as string, Number(r.last)])),
      lastOrderSeq: Number(lastOrder[0].last),
      openFeeHolds: openFeeHolds.map(feeHoldOf),
      burned: burned.map((r) => ({ currency: r.currency, amount: BigInt(r.total) })),
    };
  });
}

export async function getOrder(db: Queryable, orderId: string): Promise<OrderRow | null> {
  const [record] = await db.query<OrderRecord>(`select ${ORDER_COLUMNS} from orders where id = $1`, [orderId]);
  return record === undefined ? null : orderOf(record);
}

export async function getOrderByClientId(
  db: Queryable,
  userId: string,
  clientOrderId: string,
): Promise<OrderRow | null> {
  const [record] = await db.query<OrderRecord>(
    `select ${ORDER_COLUMNS} from orders where user_id = $1 and client_order_id = $2`,
    [userId, clientOrderId],
  );
  return record === undefined ? null : orderOf(record);
}

/** A user's orders, newest first: `open` resting ones, `history` closed ones, or `all`. */
export async function listOrders(
  db: Queryable,
  userId: string,
  options: { pairCode?: string; scope: "open" | "history" | "all"; page: number; pageSize: number },
): Promise<Page<OrderRow>> {
  const where = ["user_id = $1"];
  const params: unknown[] = [userId];
  if (options.pairCode !== undefined) where.push(`pair_code = $${params.push(options.pairCode)}`);
  if (options.scope === "open") where.push(`status = 'open'`);
  if (options.scope === "history") where.push(`status <> 'open'`);
  const filter = where.join(" and ");
  const [{ total }] = await db.query<{ total: string }>(
    `select count(*)::text as total from orders where ${filter}`,
    params,
  );
  const records = await db.query<OrderRecord>(
    `select ${ORDER_COLUMNS} from orders where ${filter} order by seq desc limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, options.pageSize, (options.page - 1) * options.pageSize],
  );
  return { items: records.map(orderOf), totalItems: Number(total) };
}

/** The deals an order took part in, oldest first. */
export async function listOrderDeals(db: Queryable, orderId: string): Promise<DealRow[]> {
  const records = await db.query<DealRecord>(
    `select ${DEAL_COLUMNS} from deals where maker_order_id = $1 union all select ${DEAL_COLUMNS} from deals where taker_order_id = $1
     order by executed_at_us, trade_seq`,
    [orderId],
  );
  return records.map(dealOf);
}

export async function getDeposit(db: Queryable, depositId: string): Promise<DepositRow | null> {
  const [record] = await db.query<DriverRow>(`select ${DEPOSIT_COLUMNS} from deposits where id = $1`, [depositId]);
  return record === undefined ? null : depositOf(record);
}

export async function getWithdrawalByClientId(
  db: Queryable,
  userId: string,
  clientWithdrawalId: string,
): Promise<WithdrawalRow | null> {
  const [record] = await db.query<DriverRow>(
    `select ${WITHDRAWAL_COLUMNS} from withdrawals where user_id = $1 and client_withdrawal_id = $2`,
    [userId, clientWithdrawalId],
  );
  return record === undefined ? null : withdrawalOf(record);
}

export async function getWithdrawal(db: Queryable, id: string): Promise<WithdrawalRow | null> {
  const [record] = await db.query<DriverRow>(`select ${WITHDRAWAL_COLUMNS} from withdrawals where id = $1`, [id]);
  return record === undefined ? null : withdrawalOf(record);
}

/** The withdrawals of `ids` that exist (in no particular order). */
export async function getWithdrawals(db: Queryable, ids: readonly string[]): Promise<WithdrawalRow[]> {
  if (ids.length === 0) return [];
  const records = await db.query<DriverRow>(
    `select ${WITHDRAWAL_COLUMNS} from withdrawals where id = any($1::uuid[])`,
    [ids],
  );
  return records.map(withdrawalOf);
}

/** Withdrawals in one of `statuses`, oldest first (the sender's queue, the operator's list). */
export async function listWithdrawalsByStatus(
  db: Queryable,
  statuses: readonly WithdrawalStatus[],
  limit: number,
): Promise<WithdrawalRow[]> {
  const records = await db.query<DriverRow>(
    `select ${WITHDRAWAL_COLUMNS} from withdrawals where status = any($1::text[]) order by created_at, id limit $2`,
    [statuses, limit],
  );
  return records.map(withdrawalOf);
}

/** What a user's withdrawals of `currency` since `sinceMs` debited, failed ones (refunded) left out: the daily limit's sum. */
export async function withdrawnSince(
  db: Queryable,
  userId: string,
  currency: string,
  sinceMs: number,
): Promise<bigint> {
  const [row] = await db.query<{ total: string | null }>(
    `select sum(amount)::text as total from withdrawals where user_id = $1 and currency = $2 and created_at >= $3 and status <> 'failed'`,
    [userId, currency, sinceMs],
  );
  return BigInt(row?.total ?? "0");
}

export async function getFeeHold(db: Queryable, holdId: string): Promise<FeeHoldRow | null> {
  const [record] = await db.query<DriverRow>(`select ${FEE_HOLD_COLUMNS} from fee_holds where id = $1`, [holdId]);
  return record === undefined ? null : feeHoldOf(record);
}

export async function listDeposits(
  db: Queryable,
  userId: string,
  page: number,
  pageSize: number,
): Promise<Page<DepositRow>> {
  return userPage(db, "deposits", DEPOSIT_COLUMNS, userId, page, pageSize, depositOf);
}

export async function listWithdrawals(
  db: Queryable,
  userId: string,
  page: number,
  pageSize: number,
): Promise<Page<WithdrawalRow>> {
  return userPage(db, "withdrawals", WITHDRAWAL_COLUMNS, userId, page, pageSize, withdrawalOf);
}

async function userPage<T>(
  db: Queryable,
  table: "deposits" | "withdrawals",
  columns: string,
  userId: string,
  page: number,
  pageSize: number,
  map: (record: DriverRow) => T,
): Promise<Page<T>> {
  const [{ total }] = await db.query<{ total: string }>(
    `select count(*)::text as total from ${table} where user_id = $1`,
    [userId],
  );
  const records = await db.query<DriverRow>(
    `select ${columns} from ${table} where user_id = $1 order by created_at desc, id limit $2 offset $3`,
    [userId, pageSize, (page - 1) * pageSize],
  );
  return { items: records.map(map), totalItems: Number(total) };
}

/** Deposits, withdrawals sent (amount less fee) and settled fee holds (burned), summed per currency. */
export async function walletFlows(db: Queryable): Promise<WalletFlows> {
  const sums = async (sql: string) =>
    new Map((await db.query<{ currency: string; total: string }>(sql)).map((row) => [row.currency, BigInt(row.total)]));
  return {
    deposited: await sums("select currency, sum(amount)::text as total from deposits group by currency"),
    // A failed withdrawal was refunded (withdrawal-refund): nothing of it left.
    withdrawn: await sums(
      "select currency, sum(amount - fee)::text as total from withdrawals where status <> 'failed' group by currency",
    ),
    burned: await sums(BURNED_SQL),
  };
}
