import { createHash } from "node:crypto";
import { candleRowsJson, candleRowsOf, candleUpsertSql } from "../marketdata/candles.ts";
import { dealRecord, orderRecord } from "./rows.ts";
import type { BalanceRow, DealRow, DepositRow, FeeTotalRow, OrderRow, Queryable, WithdrawalRow, WriteUnit } from "./types.ts";

// Group commit. Commands are applied in memory one at a time and hand their rows here; every
// unit that arrives while a transaction is in flight joins the next one, so a busy exchange
// pays one fsync for many commands instead of one each. Units are written strictly in arrival
// order and each caller is answered only once its transaction has committed: the database is
// always a prefix of what memory applied. A batch is one SQL statement (see writeUnits).

export interface CommitterOptions {
  /** A failed commit leaves memory ahead of the database: the process must stop and reload. */
  readonly onFatal: (error: unknown) => void;
  /** Most units in one transaction (bounds statement size and latency). */
  readonly maxBatch?: number;
}

export interface GroupCommitter {
  commit(unit: WriteUnit): Promise<void>;
  /** Waits until every unit handed in so far is committed (or has failed). */
  close(): Promise<void>;
}

interface Pending {
  readonly unit: WriteUnit;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export function createCommitter(db: Queryable, options: CommitterOptions): GroupCommitter {
  const maxBatch = options.maxBatch ?? 1000;
  let queue: Pending[] = [];
  let draining = false;
  let current: Promise<void> = Promise.resolve();
  let failure: unknown = null;

  // `draining` is cleared in the same synchronous step that finds the queue empty, so a unit
  // queued by a caller woken from the previous batch always finds a drain running or starts one.
  const drain = async () => {
    while (queue.length > 0) {
      const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
      queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
      try {
        await writeUnits(db, batch.map((p) => p.unit));
      } catch (error) {
        failure = error;
        for (const pending of [...batch, ...queue]) pending.reject(error);
        queue = [];
        draining = false;
        options.onFatal(error);
        return;
      }
      for (const pending of batch) pending.resolve();
    }
    draining = false;
  };

  return {
    commit(unit) {
      if (failure !== null) return Promise.reject(failure);
      return new Promise<void>((resolve, reject) => {
        queue.push({ unit, resolve, reject });
        if (!draining) {
          draining = true;
          current = drain();
        }
      });
    },
    async close() {
      while (draining) await current;
    },
  };
}

/**
 * Writes units in order as ONE statement (data-modifying CTEs, one per table), so a batch is
 * atomic on its own and costs one round trip and one commit. Later rows for the same key
 * replace earlier ones within the batch (an upsert may touch a row only once per statement).
 */
export async function writeUnits(db: Queryable, units: readonly WriteUnit[]): Promise<void> {
  const statement = batchStatement(units);
  // A batch has one of a few shapes (which tables it touches); each is planned once per connection.
  if (statement !== null) await db.query(statement.sql, statement.params, { name: `write_units_${shapeKey(statement.sql)}` });
}

const shapeNames = new Map<string, string>();

function shapeKey(sql: string): string {
  let name = shapeNames.get(sql);
  if (name === undefined) shapeNames.set(sql, (name = createHash("sha1").update(sql).digest("hex").slice(0, 16)));
  return name;
}

export function batchStatement(units: readonly WriteUnit[]): { sql: string; params: string[] } | null {
  const orders = new Map<string, OrderRow>();
  const deals: DealRow[] = [];
  const entries: { kind: string; ref: string; postings: { account: unknown; currency: string; delta: string }[] }[] = [];
  const balances = new Map<string, BalanceRow>();
  const fees = new Map<string, FeeTotalRow>();
  const deposits: DepositRow[] = [];
  const withdrawals = new Map<string, WithdrawalRow>();
  for (const unit of units) {
    for (const row of unit.orders ?? []) orders.set(row.id, row);
    deals.push(...(unit.deals ?? []));
    for (const entry of unit.entries ?? []) {
      entries.push({
        kind: entry.kind,
        ref: entry.ref,
        postings: entry.postings.map((p) => ({ account: p.account, currency: p.currency, delta: p.delta.toString() })),
      });
    }
    for (const row of unit.balances ?? []) balances.set(`${row.userId}\u0000${row.currency}`, row);
    for (const row of unit.fees ?? []) fees.set(row.currency, row);
    deposits.push(...(unit.deposits ?? []));
    for (const row of unit.withdrawals ?? []) withdrawals.set(row.id, row);
  }

  const parts: string[] = [];
  const params: string[] = [];
  const add = (rows: readonly unknown[], sql: (param: string) => string) => {
    if (rows.length === 0) return;
    params.push(JSON.stringify(rows));
    parts.push(`w${params.length} as (${sql(`$${params.length}`)} returning 1)`);
  };

  add([...orders.values()].map(orderRecord), (p) => `insert into orders as o (id, user_id, pair_code, client_order_id, is_bid, type, time_in_force, post_only,
      self_trade_prevention, price_ticks, amount_lots, quote_budget, filled_lots, remaining_lots, filled_quote, status, reason, seq, created_at, updated_at)
    select id, user_id, pair_code, client_order_id, is_bid, type, time_in_force, post_only, self_trade_prevention, price_ticks::bigint,
      amount_lots::bigint, quote_budget::numeric, filled_lots::bigint, remaining_lots::bigint, filled_quote::numeric, status, reason, seq::bigint,
      created_at::bigint, updated_at::bigint
    from json_to_recordset(${p}::json) as x(id uuid, user_id uuid, pair_code text, client_order_id text, is_bid boolean, type text, time_in_force text,
      post_only boolean, self_trade_prevention text, price_ticks text, amount_lots text, quote_budget text, filled_lots text, remaining_lots text,
      filled_quote text, status text, reason text, seq text, created_at text, updated_at text)
    on conflict (id) do update set filled_lots = excluded.filled_lots, remaining_lots = excluded.remaining_lots, filled_quote = excluded.filled_quote,
      status = excluded.status, reason = excluded.reason, updated_at = excluded.updated_at`);

  add(deals.map(dealRecord), (p) => `insert into deals (id, pair_code, trade_seq, price_ticks, amount_lots, taker_is_bid, maker_order_id, taker_order_id,
      maker_user_id, taker_user_id, maker_fee, taker_fee, executed_at_us)
    select id, pair_code, trade_seq::bigint, price_ticks::bigint, amount_lots::bigint, taker_is_bid, maker_order_id, taker_order_id, maker_user_id,
      taker_user_id, maker_fee::numeric, taker_fee::numeric, executed_at_us::bigint
    from json_to_recordset(${p}::json) as x(id uuid, pair_code text, trade_seq text, price_ticks text, amount_lots text, taker_is_bid boolean,
      maker_order_id uuid, taker_order_id uuid, maker_user_id uuid, taker_user_id uuid, maker_fee text, taker_fee text, executed_at_us text)`);

  // The rollup moves with the deals it summarises: same statement, same commit.
  const candles = candleRowsOf(deals);
  if (candles.length > 0) {
    params.push(candleRowsJson(candles));
    parts.push(`w${params.length} as (${candleUpsertSql(`$${params.length}`)} returning 1)`);
  }

  add(entries, (p) => `insert into ledger_entries (kind, ref, postings)
    select kind, ref, postings from rows from (json_to_recordset(${p}::json) as (kind text, ref text, postings jsonb)) with ordinality as x(kind, ref, postings, n)
    order by n`);

  add([...balances.values()].map((b) => ({ user_id: b.userId, currency: b.currency, available: b.available.toString(), locked: b.locked.toString() })),
    (p) => `insert into balances (user_id, currency, available, locked)
    select user_id, currency, available::numeric, locked::numeric from json_to_recordset(${p}::json) as x(user_id uuid, currency text, available text, locked text)
    on conflict (user_id, currency) do update set available = excluded.available, locked = excluded.locked`);

  add([...fees.values()].map((f) => ({ currency: f.currency, amount: f.amount.toString() })), (p) => `insert into fee_totals (currency, amount)
    select currency, amount::numeric from json_to_recordset(${p}::json) as x(currency text, amount text)
    on conflict (currency) do update set amount = excluded.amount`);

  add(
    deposits.map((d) => ({ id: d.id, user_id: d.userId, currency: d.currency, amount: d.amount.toString(), fee: d.fee.toString(), reference: d.reference, created_at: d.createdAt })),
    (p) => `insert into deposits (id, user_id, currency, amount, fee, reference, created_at)
    select id, user_id, currency, amount::numeric, fee::numeric, reference, created_at
    from json_to_recordset(${p}::json) as x(id text, user_id uuid, currency text, amount text, fee text, reference text, created_at bigint)`,
  );

  add(
    [...withdrawals.values()].map((w) => ({
      id: w.id,
      user_id: w.userId,
      client_withdrawal_id: w.clientWithdrawalId,
      currency: w.currency,
      amount: w.amount.toString(),
      fee: w.fee.toString(),
      address: w.address,
      status: w.status,
      created_at: w.createdAt,
    })),
    (p) => `insert into withdrawals (id, user_id, client_withdrawal_id, currency, amount, fee, address, status, created_at)
    select id, user_id, client_withdrawal_id, currency, amount::numeric, fee::numeric, address, status, created_at
    from json_to_recordset(${p}::json) as x(id uuid, user_id uuid, client_withdrawal_id text, currency text, amount text, fee text, address text,
      status text, created_at bigint)
    on conflict (id) do update set status = excluded.status`,
  );

  if (parts.length === 0) return null;
  return { sql: `with ${parts.join(",\n")}\nselect 1`, params };
}
