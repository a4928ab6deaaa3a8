import type { Sql } from "./sql.ts";

/**
 * What survives a restart of the API process: every relayed write from the moment it is accepted
 * (so a fee hold or a signed transaction is never forgotten), each transaction signed for it
 * (hash, nonce and the raw bytes, written before the bytes are broadcast), and the answer given,
 * which an Idempotency-Key retry gets again.
 */

/** The API's relayed writes, and the agent runtime's transactions (agents/runtime), which journal alike. */
export type WriteKind = "spawn" | "vote" | "propose" | "agent_record" | "agent_swap" | "agent_setup";

export interface WriteRow {
  readonly id: string;
  readonly userId: string;
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

const MIGRATION = `
create table if not exists relayed_write (
  id text primary key,
  user_id text not null,
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
`;

interface WriteRecord {
  id: string;
  user_id: string;
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

export class Journal {
  private readonly sql: Sql;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  async migrate(): Promise<void> {
    for (const statement of MIGRATION.split(";")
      .map((s) => s.trim())
      .filter(Boolean))
      await this.sql.query(statement);
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
    const inserted = await this.sql.query<WriteRecord>(
      `insert into relayed_write (id, user_id, kind, idempotency_key, request_hash, fee_held, state, created_at)
       values ($1, $2, $3, $4, $5, $6, 'open', $7)
       on conflict (user_id, idempotency_key) do nothing returning *`,
      [row.id, row.userId, row.kind, row.idempotencyKey, row.requestHash, row.feeHeld, row.createdAt],
    );
    if (inserted.length > 0) return null;
    return (await this.byKey(row.userId, row.idempotencyKey!))!;
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

  async finish(id: string, status: number, body: string): Promise<void> {
    await this.sql.query(
      "update relayed_write set state = 'done', answer_status = $2, answer_body = $3 where id = $1",
      [id, status, body],
    );
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
    const txParams = [tx.hash, tx.writeId, tx.nonce, tx.raw, tx.sentAt];
    if (newWrite === undefined) {
      await this.sql.query(
        "insert into relayer_tx (hash, write_id, nonce, raw, sent_at) values ($1, $2, $3, $4, $5) on conflict (hash) do nothing",
        txParams,
      );
      return;
    }
    if (newWrite.id !== tx.writeId)
      throw new Error(`transaction of ${tx.writeId} journalled with write ${newWrite.id}`);
    await this.sql.query(
      `with write as (
         insert into relayed_write (id, user_id, kind, idempotency_key, request_hash, fee_held, state, created_at)
         values ($2, $6, $7, $8, $9, $10, 'open', $11) on conflict do nothing
       )
       insert into relayer_tx (hash, write_id, nonce, raw, sent_at) values ($1, $2, $3, $4, $5) on conflict (hash) do nothing`,
      [
        ...txParams,
        newWrite.userId,
        newWrite.kind,
        newWrite.idempotencyKey,
        newWrite.requestHash,
        newWrite.feeHeld,
        newWrite.createdAt,
      ],
    );
  }

  async dropTx(hash: string): Promise<void> {
    await this.sql.query("delete from relayer_tx where hash = $1", [hash]);
  }

  async txsOf(writeId: string): Promise<TxRow[]> {
    const rows = await this.sql.query<{ hash: string; write_id: string; nonce: string; raw: string; sent_at: string }>(
      "select * from relayer_tx where write_id = $1 order by sent_at",
      [writeId],
    );
    return rows.map((r) => ({
      hash: r.hash as `0x${string}`,
      writeId: r.write_id,
      nonce: Number(r.nonce),
      raw: r.raw as `0x${string}`,
      sentAt: Number(r.sent_at),
    }));
  }

  /** The highest nonce ever signed, or -1. */
  async maxNonce(): Promise<number> {
    const [row] = await this.sql.query<{ max: string | null }>("select max(nonce) as max from relayer_tx");
    return row?.max === null || row?.max === undefined ? -1 : Number(row.max);
  }

  async clear(): Promise<void> {
    await this.sql.query("delete from relayer_tx");
    await this.sql.query("delete from relayed_write");
  }
}
