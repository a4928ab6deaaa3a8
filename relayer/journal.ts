import { UnavailableError } from "../lib/unavailable.ts";
import { OrderedBatch } from "../lib/ordered-batch.ts";
import type { Sql } from "../lib/db/index.ts";

/**
 * What survives a restart of the API process: every relayed write from the moment it is accepted
 * (so a fee hold or a signed transaction is never forgotten), each transaction signed for it
 * (hash, nonce and the raw bytes, written before the bytes are broadcast), and the answer given,
 * which an Idempotency-Key retry gets again.
 *
 * The statements of every write (journalled, its transaction added, finished) go through one
 * coalescer: an idle journal runs a statement at once; the ones asked for while a batch runs go
 * together in the next, one multi-row statement per kind. With 32 spawns in flight on PGlite, a
 * one-row statement costs 0.5-0.9 ms of CPU against about 0.07 ms a row in a statement of ten
 * (the writes' thread spent about a third of its CPU in the journal before).
 */

/** The API's relayed writes, and the agent runtime's transactions (agents/runtime), which journal alike. */
export type WriteKind =
  | "spawn"
  | "vote"
  | "propose"
  | "set_operator"
  | "agent_record"
  | "agent_swap"
  | "agent_setup"
  // The exchange hot wallet's withdrawals and sweeps of deposit addresses (exchange/adapters/chain),
  // in a journal of their own.
  | "withdrawal"
  | "sweep";

export interface WriteRow {
  readonly id: string;
  /**
   * Whose write it is (an API user, an agent); null for the system's own (the exchange hot
   * wallet's sweeps), which take no Idempotency-Key (keys are per user).
   */
  readonly userId: string | null;
  readonly kind: WriteKind;
  readonly idempotencyKey: string | null;
  readonly requestHash: string;
  /** The exchange holds a fee under this write's id (spawns). */
  readonly feeHeld: boolean;
  readonly state: "open" | "done";
  readonly answerStatus: number | null;
  readonly answerBody: string | null;
  readonly createdAt: number;
}

/** A write as it is first journalled. */
export type NewWrite = Omit<WriteRow, "state" | "answerStatus" | "answerBody">;

export interface TxRow {
  readonly hash: `0x${string}`;
  readonly writeId: string;
  readonly nonce: number;
  readonly raw: `0x${string}`;
  readonly sentAt: number;
}

/**
 * A zero-value transfer from the relayer to itself, signed to use a nonce whose write was given
 * up (its bytes refused, or never journalled): journalled before it is broadcast, like any
 * transaction, so the nonce cannot be left unused.
 */
export type FillerRow = Omit<TxRow, "writeId">;

const MIGRATION = `
create table if not exists relayed_write (
  id text primary key,
  user_id text,
  kind text not null,
  idempotency_key text,
  request_hash text not null,
  fee_held boolean not null default false,
  state text not null,
  answer_status integer,
  answer_body text,
  created_at bigint not null,
  unique (user_id, idempotency_key)
);
create index if not exists relayed_write_open on relayed_write (state) where state = 'open';
create table if not exists relayer_tx (
  hash text primary key,
  write_id text not null references relayed_write (id) on delete cascade,
  nonce bigint not null,
  raw text not null,
  sent_at bigint not null
);
create index if not exists relayer_tx_write on relayer_tx (write_id);
create table if not exists relayer_meta (key text primary key, value text not null);
create table if not exists relayer_filler (
  hash text primary key,
  nonce bigint not null,
  raw text not null,
  sent_at bigint not null
);
create index if not exists relayer_filler_nonce on relayer_filler (nonce);
`;

interface WriteRecord {
  id: string;
  user_id: string | null;
  kind: WriteKind;
  idempotency_key: string | null;
  request_hash: string;
  fee_held: boolean;
  state: "open" | "done";
  answer_status: number | null;
  answer_body: string | null;
  created_at: string | number;
}

const toWrite = (r: WriteRecord): WriteRow => ({
  id: r.id,
  userId: r.user_id,
  kind: r.kind,
  idempotencyKey: r.idempotency_key,
  requestHash: r.request_hash,
  feeHeld: r.fee_held,
  state: r.state,
  answerStatus: r.answer_status,
  answerBody: r.answer_body,
  createdAt: Number(r.created_at),
});

interface TxRecord {
  hash: string;
  write_id?: string;
  nonce: string;
  raw: string;
  sent_at: string;
}

const toTx = (r: TxRecord): TxRow => ({
  hash: r.hash as `0x${string}`,
  writeId: r.write_id ?? "",
  nonce: Number(r.nonce),
  raw: r.raw as `0x${string}`,
  sentAt: Number(r.sent_at),
});

/** A statement of a write that can share a batch with other writes' statements. */
type InsertWriteOp = { readonly kind: "insertWrite"; readonly row: NewWrite };
type AddTxOp = { readonly kind: "addTx"; readonly tx: TxRow; readonly newWrite: NewWrite | undefined };
type FinishOp = {
  readonly kind: "finish";
  readonly id: string;
  readonly status: number | null;
  readonly body: string;
};
type Op = InsertWriteOp | AddTxOp | FinishOp;

/** Most statements in one batch, and most bytes of rows (raw transactions and answers). */
const BATCH_MAX = 64;
const BATCH_BYTES = 4_000_000;

const weightOf = (op: Op) =>
  op.kind === "addTx" ? op.tx.raw.length + 200 : op.kind === "finish" ? op.body.length + 100 : 200;

const writeJson = (w: NewWrite) => ({
  id: w.id,
  user_id: w.userId,
  kind: w.kind,
  idempotency_key: w.idempotencyKey,
  request_hash: w.requestHash,
  fee_held: w.feeHeld,
  created_at: w.createdAt,
});
/** Inserts the writes of the JSON array in `param` (writeJson rows) as open. */
const insertWritesSql = (param: string) => `insert into relayed_write (id, user_id, kind, idempotency_key, request_hash,
    fee_held, state, created_at)
  select id, user_id, kind, idempotency_key, request_hash, fee_held, 'open', created_at
  from json_to_recordset(${param}::json) as x(id text, user_id text, kind text, idempotency_key text, request_hash text,
    fee_held boolean, created_at bigint)`;

export class Journal {
  private readonly sql: Sql;
  private readonly batch: OrderedBatch<Op, boolean>;

  constructor(sql: Sql) {
    this.sql = sql;
    this.batch = new OrderedBatch((ops) => this.runBatch(ops), BATCH_MAX, { weightOf, max: BATCH_BYTES });
  }

  async migrate(): Promise<void> {
    for (const statement of MIGRATION.split(";")
      .map((s) => s.trim())
      .filter(Boolean))
      await this.sql.query(statement);
    // Journals made before system writes (null user) had user_id not null. Altered only when so:
    // the alter takes the table's exclusive lock, which a journal shared on a server should not
    // take at every start.
    const [userId] = await this.sql.query<{ is_nullable: string }>(
      `select is_nullable from information_schema.columns
       where table_schema = current_schema() and table_name = 'relayed_write' and column_name = 'user_id'`,
    );
    if (userId?.is_nullable === "NO")
      await this.sql.query("alter table relayed_write alter column user_id drop not null");
  }

  /**
   * Binds the journal to one chain, named by its genesis block hash. A different chain (a local
   * node started afresh) makes every journalled transaction meaningless there: the caller is told
   * so it can release what was held, and the journal starts empty.
   */
  async bindChain(genesisHash: string): Promise<"same" | "new" | "changed"> {
    const [row] = await this.sql.query<{ value: string }>("select value from relayer_meta where key = 'genesis'");
    if (row?.value === genesisHash) return "same";
    await this.sql.query(
      "insert into relayer_meta (key, value) values ('genesis', $1) on conflict (key) do update set value = excluded.value",
      [genesisHash],
    );
    return row === undefined ? "new" : "changed";
  }

  /** Inserts a write; with an Idempotency-Key already taken, returns the existing row instead. */
  async insertWrite(row: NewWrite): Promise<WriteRow | null> {
    if (await this.batch.send({ kind: "insertWrite", row })) return null;
    // Only a user's write with a key can conflict (nulls never match in the unique index).
    return (await this.byKey(row.userId!, row.idempotencyKey!))!;
  }

  async byKey(userId: string, key: string): Promise<WriteRow | undefined> {
    const [row] = await this.sql.query<WriteRecord>(
      "select * from relayed_write where user_id = $1 and idempotency_key = $2",
      [userId, key],
    );
    return row && toWrite(row);
  }

  async byId(id: string): Promise<WriteRow | undefined> {
    const [row] = await this.sql.query<WriteRecord>("select * from relayed_write where id = $1", [id]);
    return row && toWrite(row);
  }

  /**
   * Marks a write done with its answer, kept for an Idempotency-Key retry. `status` is null when
   * the answer holds no HTTP status: the API's writes journal their outcome (code and body) and
   * derive the status again (api/writes/outcome.ts); rows from before that hold a status.
   */
  async finish(id: string, status: number | null, body: string): Promise<void> {
    await this.batch.send({ kind: "finish", id, status, body });
  }

  /** Forgets a write that never reached the chain, so a retry with its key runs afresh. */
  async forget(id: string): Promise<void> {
    await this.sql.query("delete from relayed_write where id = $1", [id]);
  }

  /** Writes not finished yet, oldest first; with `kind`, only those of that kind. */
  async openWrites(kind?: WriteKind): Promise<WriteRow[]> {
    return (
      await this.sql.query<WriteRecord>(
        "select * from relayed_write where state = 'open' and ($1::text is null or kind = $1) order by created_at",
        [kind ?? null],
      )
    ).map(toWrite);
  }

  /**
   * Journals a transaction. With `newWrite`, its write is journalled in the same statement: for a
   * write no one can have journalled yet (an agent's fresh intent), one database round trip
   * instead of two before the broadcast (the foreign key is checked at the statement's end).
   */
  async addTx(tx: TxRow, newWrite?: NewWrite): Promise<void> {
    if (newWrite !== undefined && newWrite.id !== tx.writeId)
      throw new Error(`transaction of ${tx.writeId} journalled with write ${newWrite.id}`);
    await this.batch.send({ kind: "addTx", tx, newWrite });
  }

  async dropTx(hash: string): Promise<void> {
    await this.sql.query("delete from relayer_tx where hash = $1", [hash]);
  }

  async txsOf(writeId: string): Promise<TxRow[]> {
    return (
      await this.sql.query<TxRecord>("select * from relayer_tx where write_id = $1 order by sent_at", [writeId])
    ).map(toTx);
  }

  /** The transactions of each of `writeIds` (one read for many: the hot wallet's send rounds), oldest first; writes without one are absent. */
  async txsOfWrites(writeIds: readonly string[]): Promise<Map<string, TxRow[]>> {
    const byWrite = new Map<string, TxRow[]>();
    if (writeIds.length === 0) return byWrite;
    const rows = await this.sql.query<TxRecord>(
      "select * from relayer_tx where write_id = any($1::text[]) order by sent_at",
      [writeIds],
    );
    for (const tx of rows.map(toTx)) {
      const txs = byWrite.get(tx.writeId);
      if (txs === undefined) byWrite.set(tx.writeId, [tx]);
      else txs.push(tx);
    }
    return byWrite;
  }

  /** Every transaction signed with `nonce` (versions of one write, normally), oldest first. */
  async txsAt(nonce: number): Promise<TxRow[]> {
    return (await this.sql.query<TxRecord>("select * from relayer_tx where nonce = $1 order by sent_at", [nonce])).map(
      toTx,
    );
  }

  async addFiller(filler: FillerRow): Promise<void> {
    await this.sql.query(
      "insert into relayer_filler (hash, nonce, raw, sent_at) values ($1, $2, $3, $4) on conflict (hash) do nothing",
      [filler.hash, filler.nonce, filler.raw, filler.sentAt],
    );
  }

  async dropFiller(hash: string): Promise<void> {
    await this.sql.query("delete from relayer_filler where hash = $1", [hash]);
  }

  /** The fillers signed with `nonce`, oldest first. */
  async fillersAt(nonce: number): Promise<FillerRow[]> {
    return (
      await this.sql.query<TxRecord>("select * from relayer_filler where nonce = $1 order by sent_at", [nonce])
    ).map((r) => {
      const { writeId: _, ...filler } = toTx(r);
      return filler;
    });
  }

  /** The bytes of every transaction and filler signed with `nonce` or a later one. */
  async rawsFrom(nonce: number): Promise<{ nonce: number; raw: `0x${string}`; filler: boolean }[]> {
    const rows = await this.sql.query<{ nonce: string; raw: string; filler: boolean }>(
      `select nonce, raw, false as filler from relayer_tx where nonce >= $1
       union all select nonce, raw, true as filler from relayer_filler where nonce >= $1`,
      [nonce],
    );
    return rows.map((r) => ({ nonce: Number(r.nonce), raw: r.raw as `0x${string}`, filler: r.filler }));
  }

  /** The highest nonce ever signed (a write's or a filler's), or -1. */
  async maxNonce(): Promise<number> {
    const [row] = await this.sql.query<{ max: string | null }>(
      "select greatest((select max(nonce) from relayer_tx), (select max(nonce) from relayer_filler)) as max",
    );
    return row?.max === null || row?.max === undefined ? -1 : Number(row.max);
  }

  async clear(): Promise<void> {
    await this.sql.query("delete from relayer_tx");
    await this.sql.query("delete from relayer_filler");
    await this.sql.query("delete from relayed_write");
  }

  /**
   * Runs a batch: one statement per kind, each answering all of its ops. A statement that fails
   * for another reason than the database being away (a transaction of a write that is not there)
   * is run again op by op, so one bad op fails alone.
   */
  private async runBatch(ops: readonly Op[]): Promise<PromiseSettledResult<boolean>[]> {
    const results: PromiseSettledResult<boolean>[] = new Array(ops.length);
    for (const kind of ["insertWrite", "addTx", "finish"] as const) {
      const at = ops.flatMap((op, i) => (op.kind === kind ? [i] : []));
      if (at.length === 0) continue;
      const group = at.map((i) => ops[i]!);
      try {
        const answers = await this.runGroup(group);
        for (const [n, i] of at.entries()) results[i] = { status: "fulfilled", value: answers[n]! };
      } catch (error) {
        if (group.length === 1 || error instanceof UnavailableError) {
          for (const i of at) results[i] = { status: "rejected", reason: error };
          continue;
        }
        for (const [n, i] of at.entries())
          results[i] = await this.runGroup([group[n]!]).then(
            ([value]): PromiseSettledResult<boolean> => ({ status: "fulfilled", value: value! }),
            (reason: unknown): PromiseSettledResult<boolean> => ({ status: "rejected", reason }),
          );
      }
    }
    return results;
  }

  /** Ops of one kind in one statement; for each, whether it inserted (insertWrite) or true. */
  private runGroup(ops: readonly Op[]): Promise<boolean[]> {
    // runBatch groups by kind, so every op here is of the first one's kind.
    const kind = ops[0]!.kind;
    if (kind === "insertWrite") return this.insertWrites(ops.map((op) => (op as InsertWriteOp).row));
    if (kind === "addTx") return this.addTxs(ops as readonly AddTxOp[]);
    return this.finishAll(ops as readonly FinishOp[]);
  }

  private async insertWrites(rows: readonly NewWrite[]): Promise<boolean[]> {
    const inserted = await this.sql.query<{ id: string }>(
      `${insertWritesSql("$1")} on conflict (user_id, idempotency_key) do nothing returning id`,
      [JSON.stringify(rows.map(writeJson))],
    );
    const ids = new Set(inserted.map((r) => r.id));
    return rows.map((row) => ids.has(row.id));
  }

  private async addTxs(adds: readonly AddTxOp[]): Promise<boolean[]> {
    const txs = JSON.stringify(
      adds.map(({ tx }) => ({ hash: tx.hash, write_id: tx.writeId, nonce: tx.nonce, raw: tx.raw, sent_at: tx.sentAt })),
    );
    const insertTxs = `insert into relayer_tx (hash, write_id, nonce, raw, sent_at)
      select hash, write_id, nonce, raw, sent_at
      from json_to_recordset($1::json) as x(hash text, write_id text, nonce bigint, raw text, sent_at bigint)
      on conflict (hash) do nothing`;
    const newWrites = adds.flatMap(({ newWrite }) => (newWrite ? [writeJson(newWrite)] : []));
    // A write journalled with its transaction goes in the same statement (one round trip; the
    // foreign key is checked at the statement's end), and a write already there stays as it is.
    if (newWrites.length === 0) await this.sql.query(insertTxs, [txs]);
    else
      await this.sql.query(`with write as (${insertWritesSql("$2")} on conflict do nothing) ${insertTxs}`, [
        txs,
        JSON.stringify(newWrites),
      ]);
    return adds.map(() => true);
  }

  private async finishAll(finishes: readonly FinishOp[]): Promise<boolean[]> {
    await this.sql.query(
      `update relayed_write as w set state = 'done', answer_status = x.status, answer_body = x.body
       from json_to_recordset($1::json) as x(id text, status integer, body text) where w.id = x.id`,
      [JSON.stringify(finishes.map(({ id, status, body }) => ({ id, status, body })))],
    );
    return finishes.map(() => true);
  }
}
