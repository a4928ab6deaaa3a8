import { UnavailableError } from "../../../lib/unavailable.ts";
import { withDeadline } from "../../../lib/deadline.ts";
import { createHash } from "node:crypto";
import { candleRowsOf } from "../../core/candles/index.ts";
import { candleRowsJson, candleUpsertSql } from "./candles.ts";
import { dealRecord, orderRecord } from "./rows.ts";
import type {
  BalanceRow,
  DealRow,
  DepositRow,
  FeeHoldRow,
  FeeTotalRow,
  OrderRow,
  Queryable,
  WithdrawalRow,
  WriteUnit,
} from "./types.ts";

// Group commit. Commands are applied in memory one at a time and hand their rows here; every
// unit that arrives while a transaction is in flight joins the next one, so a busy exchange
// pays one fsync for many commands instead of one each. Units are written strictly in arrival
// order and each caller is answered only once its transaction has committed: the database is
// always a prefix of what memory applied. A batch is one SQL statement (see writeUnits).
//
// The database can hang or vanish. A batch that fails or is not confirmed within `timeoutMs`
// fails every waiting unit with UnavailableError (its outcome is unknown: it may yet
// commit), and from then on the committer refuses units at once until `resume()`; the owner
// reloads its state from the database in between. At most `maxPending` units wait or are being
// written, so memory stays bounded however long the database takes.

export interface CommitterOptions {
  /** Most units in one transaction (bounds statement size and latency). */
  readonly maxBatch?: number;
  /** Most units waiting or being written; more are refused before the caller changes anything. */
  readonly maxPending?: number;
  /** A batch not confirmed within this many ms is given up as failed. */
  readonly timeoutMs?: number;
  /**
   * Called once when an onCommitted listener throws (a bug: the committed view may now be out of
   * step): every waiting caller has been answered with the error and the committer refuses all
   * further units. The server exits here; default console.error.
   */
  readonly onFatal?: (error: unknown) => void;
}

export interface GroupCommitter {
  /** Resolves once the unit is durable; rejects with UnavailableError when it may not be. */
  commit(unit: WriteUnit): Promise<void>;
  /**
   * Throws UnavailableError when commit() would refuse a unit now (failed, or full).
   * Callers check before they change memory, in the same synchronous step as their commit().
   */
  admit(): void;
  /** true from a failure until resume(), and for good once a listener threw (see onFatal). */
  readonly failed: boolean;
  /** Units waiting or being written. */
  readonly pending: number;
  /** Called with every committed batch's units, in order, before their callers wake. */
  onCommitted(listener: (units: readonly WriteUnit[]) => void): void;
  /** Called once per failure, with the cause, after every waiting unit has been failed. */
  onFailure(listener: (error: unknown) => void): void;
  /**
   * Fails now, as a failed batch would: the owner saw the database go away elsewhere (a read).
   * Waiting units and the batch being written are failed (its outcome is unknown); no-op when failed.
   */
  fail(cause: unknown): void;
  /** Takes units again after a failure (once the owner has reloaded from the database). */
  resume(): void;
  /** Waits until every unit handed in so far is committed (or has failed). */
  close(): Promise<void>;
}

interface Pending {
  readonly unit: WriteUnit;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export const COMMITTER_DEFAULTS = { maxBatch: 1000, maxPending: 10_000, timeoutMs: 10_000 } as const;

export function createCommitter(db: Queryable, options: CommitterOptions = {}): GroupCommitter {
  const maxBatch = options.maxBatch ?? COMMITTER_DEFAULTS.maxBatch;
  const maxPending = options.maxPending ?? COMMITTER_DEFAULTS.maxPending;
  const timeoutMs = options.timeoutMs ?? COMMITTER_DEFAULTS.timeoutMs;
  const committedListeners: ((units: readonly WriteUnit[]) => void)[] = [];
  const failureListeners: ((error: unknown) => void)[] = [];
  let queue: Pending[] = [];
  let writing = 0;
  let draining = false;
  let current: Promise<void> = Promise.resolve();
  let failed = false;
  /** Set when an onCommitted listener threw: nothing is taken any more, resume() included. */
  let broken: Error | null = null;
  const onFatal =
    options.onFatal ??
    ((error: unknown) => console.error("exchange: a committed-batch listener failed; the process must restart", error));
  /** Ends the wait for the batch being written (fail() from outside). */
  let abortBatch: ((cause: unknown) => void) | null = null;

  const refusal = () =>
    broken !== null
      ? broken
      : failed
        ? new UnavailableError(
            "exchange database",
            "The database is unavailable; the exchange takes no commands until it is back",
          )
        : new UnavailableError(
            "exchange database",
            `Too many commands are waiting for the database (${maxPending}); retry shortly`,
          );

  // `draining` is cleared in the same synchronous step that finds the queue empty, so a unit
  // queued by a caller woken from the previous batch always finds a drain running or starts one.
  const drain = async () => {
    while (queue.length > 0) {
      const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
      queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
      writing = batch.length;
      const units = batch.map((p) => p.unit);
      try {
        const aborted = new Promise<never>((_, reject) => (abortBatch = reject));
        await Promise.race([
          withDeadline(
            writeUnits(db, units),
            timeoutMs,
            () => new UnavailableError("exchange database", `no answer from the database within ${timeoutMs} ms`),
          ),
          aborted,
        ]);
      } catch (cause) {
        abortBatch = null;
        failed = true;
        writing = 0;
        const error = new UnavailableError(
          "exchange database",
          "The database did not confirm the command, so its outcome is unknown; a retry with the same clientOrderId or clientWithdrawalId returns it if it was stored",
          { cause },
        );
        const waiting = [...batch, ...queue];
        queue = [];
        draining = false;
        for (const pending of waiting) pending.reject(error);
        for (const listener of failureListeners) listener(cause);
        return;
      }
      abortBatch = null;
      writing = 0;
      try {
        for (const listener of committedListeners) listener(units);
      } catch (bug) {
        // Committed, but what readers see may now be wrong: answer everyone, take nothing more,
        // and let the owner stop the process, as for any other bug.
        broken = new Error("The exchange stopped after an internal error and must restart", { cause: bug });
        failed = true;
        const waiting = [...batch, ...queue];
        queue = [];
        draining = false;
        for (const pending of waiting) pending.reject(broken);
        onFatal(bug);
        return;
      }
      for (const pending of batch) pending.resolve();
    }
    draining = false;
  };

  const admit = () => {
    if (failed || queue.length + writing >= maxPending) throw refusal();
  };

  return {
    commit(unit) {
      try {
        admit();
      } catch (error) {
        return Promise.reject(error);
      }
      return new Promise<void>((resolve, reject) => {
        queue.push({ unit, resolve, reject });
        if (!draining) {
          draining = true;
          current = drain();
        }
      });
    },
    admit,
    get failed() {
      return failed;
    },
    get pending() {
      return queue.length + writing;
    },
    onCommitted(listener) {
      committedListeners.push(listener);
    },
    onFailure(listener) {
      failureListeners.push(listener);
    },
    fail(cause) {
      if (failed || broken !== null) return;
      if (abortBatch !== null) return abortBatch(cause);
      failed = true;
      const error = new UnavailableError(
        "exchange database",
        "The database is unavailable; the exchange takes no commands until it is back",
        { cause },
      );
      const waiting = queue;
      queue = [];
      for (const pending of waiting) pending.reject(error);
      for (const listener of failureListeners) listener(cause);
    },
    resume() {
      if (broken === null) failed = false;
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
  if (statement !== null)
    await db.query(statement.sql, statement.params, { name: `write_units_${shapeKey(statement.sql)}` });
}

const shapeNames = new Map<string, string>();

function shapeKey(sql: string): string {
  let name = shapeNames.get(sql);
  if (name === undefined) {
    name = createHash("sha1").update(sql).digest("hex").slice(0, 16);
    shapeNames.set(sql, name);
  }
  return name;
}

export function batchStatement(units: readonly WriteUnit[]): { sql: string; params: string[] } | null {
  const orders = new Map<string, OrderRow>();
  const deals: DealRow[] = [];
  const entries: { kind: string; ref: string; postings: { account: unknown; currency: string; delta: string }[] }[] =
    [];
  const balances = new Map<string, BalanceRow>();
  const fees = new Map<string, FeeTotalRow>();
  const deposits: DepositRow[] = [];
  const withdrawals = new Map<string, WithdrawalRow>();
  const feeHolds = new Map<string, FeeHoldRow>();
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
    for (const row of unit.feeHolds ?? []) feeHolds.set(row.id, row);
  }

  const parts: string[] = [];
  const params: string[] = [];
  const add = (rows: readonly unknown[], sql: (param: string) => string) => {
    if (rows.length === 0) return;
    params.push(JSON.stringify(rows));
    parts.push(`w${params.length} as (${sql(`$${params.length}`)} returning 1)`);
  };

  add(
    [...orders.values()].map(orderRecord),
    (p) => `insert into orders as o (id, user_id, pair_code, client_order_id, is_bid, type, time_in_force, post_only,
      self_trade_prevention, price_ticks, amount_lots, quote_budget, filled_lots, remaining_lots, filled_quote, status, reason, seq, created_at, updated_at)
    select id, user_id, pair_code, client_order_id, is_bid, type, time_in_force, post_only, self_trade_prevention, price_ticks::bigint,
      amount_lots::bigint, quote_budget::numeric, filled_lots::bigint, remaining_lots::bigint, filled_quote::numeric, status, reason, seq::bigint,
      created_at::bigint, updated_at::bigint
    from json_to_recordset(${p}::json) as x(id uuid, user_id uuid, pair_code text, client_order_id text, is_bid boolean, type text, time_in_force text,
      post_only boolean, self_trade_prevention text, price_ticks text, amount_lots text, quote_budget text, filled_lots text, remaining_lots text,
      filled_quote text, status text, reason text, seq text, created_at text, updated_at text)
    on conflict (id) do update set filled_lots = excluded.filled_lots, remaining_lots = excluded.remaining_lots, filled_quote = excluded.filled_quote,
      status = excluded.status, reason = excluded.reason, updated_at = excluded.updated_at`,
  );

  add(
    deals.map(dealRecord),
    (
      p,
    ) => `insert into deals (id, pair_code, trade_seq, price_ticks, amount_lots, taker_is_bid, maker_order_id, taker_order_id,
      maker_user_id, taker_user_id, maker_fee, taker_fee, executed_at_us)
    select id, pair_code, trade_seq::bigint, price_ticks::bigint, amount_lots::bigint, taker_is_bid, maker_order_id, taker_order_id, maker_user_id,
      taker_user_id, maker_fee::numeric, taker_fee::numeric, executed_at_us::bigint
    from json_to_recordset(${p}::json) as x(id uuid, pair_code text, trade_seq text, price_ticks text, amount_lots text, taker_is_bid boolean,
      maker_order_id uuid, taker_order_id uuid, maker_user_id uuid, taker_user_id uuid, maker_fee text, taker_fee text, executed_at_us text)`,
  );

  // The rollup moves with the deals it summarises: same statement, same commit.
  const candles = candleRowsOf(deals);
  if (candles.length > 0) {
    params.push(candleRowsJson(candles));
    parts.push(`w${params.length} as (${candleUpsertSql(`$${params.length}`)} returning 1)`);
  }

  add(
    entries,
    (p) => `insert into ledger_entries (kind, ref, postings)
    select kind, ref, postings from rows from (json_to_recordset(${p}::json) as (kind text, ref text, postings jsonb)) with ordinality as x(kind, ref, postings, n)
    order by n`,
  );

  add(
    [...balances.values()].map((b) => ({
      user_id: b.userId,
      currency: b.currency,
      available: b.available.toString(),
      locked: b.locked.toString(),
    })),
    (p) => `insert into balances (user_id, currency, available, locked)
    select user_id, currency, available::numeric, locked::numeric from json_to_recordset(${p}::json) as x(user_id uuid, currency text, available text, locked text)
    on conflict (user_id, currency) do update set available = excluded.available, locked = excluded.locked`,
  );

  add(
    [...fees.values()].map((f) => ({ currency: f.currency, amount: f.amount.toString() })),
    (p) => `insert into fee_totals (currency, amount)
    select currency, amount::numeric from json_to_recordset(${p}::json) as x(currency text, amount text)
    on conflict (currency) do update set amount = excluded.amount`,
  );

  add(
    deposits.map((d) => ({
      id: d.id,
      user_id: d.userId,
      currency: d.currency,
      amount: d.amount.toString(),
      fee: d.fee.toString(),
      reference: d.reference,
      created_at: d.createdAt,
    })),
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
      tx_hash: w.txHash,
      sent_at: w.sentAt,
      completed_at: w.completedAt,
      failed_at: w.failedAt,
      failure_reason: w.failureReason,
      approval_required: w.approvalRequired,
      approved_at: w.approvedAt,
    })),
    (
      p,
    ) => `insert into withdrawals (id, user_id, client_withdrawal_id, currency, amount, fee, address, status, created_at, tx_hash, sent_at,
      completed_at, failed_at, failure_reason, approval_required, approved_at)
    select id, user_id, client_withdrawal_id, currency, amount::numeric, fee::numeric, address, status, created_at, tx_hash, sent_at,
      completed_at, failed_at, failure_reason, approval_required, approved_at
    from json_to_recordset(${p}::json) as x(id uuid, user_id uuid, client_withdrawal_id text, currency text, amount text, fee text, address text,
      status text, created_at bigint, tx_hash text, sent_at bigint, completed_at bigint, failed_at bigint, failure_reason text,
      approval_required boolean, approved_at bigint)
    on conflict (id) do update set status = excluded.status, tx_hash = excluded.tx_hash, sent_at = excluded.sent_at,
      completed_at = excluded.completed_at, failed_at = excluded.failed_at, failure_reason = excluded.failure_reason,
      approved_at = excluded.approved_at`,
  );

  add(
    [...feeHolds.values()].map((h) => ({
      id: h.id,
      user_id: h.userId,
      currency: h.currency,
      amount: h.amount.toString(),
      status: h.status,
      reference: h.reference,
      memo: h.memo,
      created_at: h.createdAt,
      resolved_at: h.resolvedAt,
    })),
    (p) => `insert into fee_holds (id, user_id, currency, amount, status, reference, memo, created_at, resolved_at)
    select id, user_id, currency, amount::numeric, status, reference, memo, created_at, resolved_at
    from json_to_recordset(${p}::json) as x(id uuid, user_id uuid, currency text, amount text, status text, reference text, memo text,
      created_at bigint, resolved_at bigint)
    on conflict (id) do update set status = excluded.status, reference = excluded.reference, resolved_at = excluded.resolved_at`,
  );

  if (parts.length === 0) return null;
  return { sql: `with ${parts.join(",\n")}\nselect 1`, params };
}
