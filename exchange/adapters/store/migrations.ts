import { createHash } from "node:crypto";
import type { Db } from "./types.ts";

// The exchange schema, as numbered migrations applied once each, in order, in one transaction
// per migration. A released migration is frozen text: every statement is written out here (no
// constant shared with live code, which would rewrite history when that code changes), its
// checksum is pinned by migrations.test.ts and recorded in schema_migrations, and start-up
// refuses a database whose applied migrations differ. Change the schema by adding the next one.
// Money is numeric(78, 0) base units (bigint-sized and beyond), ticks and lots bigint, times
// bigint epoch ms (deal execution times epoch microseconds).

export const MIGRATIONS: readonly (readonly string[])[] = [
  [
    `create table currencies (
      code text primary key,
      name text not null,
      decimals integer not null check (decimals between 0 and 36),
      can_deposit boolean not null,
      can_withdraw boolean not null,
      min_withdraw text,
      max_withdraw text,
      unified_cryptoasset_id integer,
      adapter_code text,
      position integer not null
    )`,
    `create table pairs (
      code text primary key,
      base text not null references currencies (code),
      quote text not null references currencies (code),
      digits_price integer not null,
      digits_amount integer not null,
      min_quote_amount text,
      active boolean not null
    )`,
    `create table commissions (
      position bigserial primary key,
      commission_id uuid not null unique,
      currency_code text,
      currency_pair_code text,
      currency_adapter_code text,
      percent text not null,
      minimum text not null,
      commission_currency_code text,
      commission_type_code text not null,
      min_level integer not null default 0
    )`,
    `create table users (
      id uuid primary key,
      level integer not null,
      address text,
      created_at bigint not null
    )`,
    `create table api_keys (
      public_key text primary key,
      user_id uuid not null references users (id),
      private_key_encrypted text not null,
      created_at bigint not null,
      revoked_at bigint
    )`,
    `create table orders (
      id uuid primary key,
      user_id uuid not null,
      pair_code text not null,
      client_order_id text,
      is_bid boolean not null,
      type text not null,
      time_in_force text not null,
      post_only boolean not null,
      self_trade_prevention text not null,
      price_ticks bigint,
      amount_lots bigint not null,
      quote_budget numeric(78, 0),
      filled_lots bigint not null,
      remaining_lots bigint not null,
      filled_quote numeric(78, 0) not null,
      status text not null,
      reason text,
      seq bigint not null unique,
      created_at bigint not null,
      updated_at bigint not null
    )`,
    `create unique index orders_client_order_id on orders (user_id, client_order_id) where client_order_id is not null`,
    `create index orders_by_user on orders (user_id, seq desc)`,
    `create index orders_open on orders (seq) where status = 'open'`,
    `create table deals (
      id uuid primary key,
      pair_code text not null,
      trade_seq bigint not null,
      price_ticks bigint not null,
      amount_lots bigint not null,
      taker_is_bid boolean not null,
      maker_order_id uuid not null,
      taker_order_id uuid not null,
      maker_user_id uuid not null,
      taker_user_id uuid not null,
      maker_fee numeric(78, 0) not null,
      taker_fee numeric(78, 0) not null,
      executed_at_us bigint not null,
      unique (pair_code, trade_seq)
    )`,
    `create index deals_by_time on deals (pair_code, executed_at_us desc, trade_seq desc)`,
    `create index deals_by_maker_order on deals (maker_order_id)`,
    `create index deals_by_taker_order on deals (taker_order_id)`,
    `create table ledger_entries (
      seq bigserial primary key,
      kind text not null,
      ref text not null,
      postings jsonb not null
    )`,
    `create table balances (
      user_id uuid not null,
      currency text not null,
      available numeric(78, 0) not null check (available >= 0),
      locked numeric(78, 0) not null check (locked >= 0),
      primary key (user_id, currency)
    )`,
    `create table fee_totals (
      currency text primary key,
      amount numeric(78, 0) not null check (amount >= 0)
    )`,
    `create table deposits (
      id text primary key,
      user_id uuid not null,
      currency text not null,
      amount numeric(78, 0) not null,
      fee numeric(78, 0) not null,
      reference text,
      created_at bigint not null
    )`,
    `create index deposits_by_user on deposits (user_id, created_at desc)`,
    `create table withdrawals (
      id uuid primary key,
      user_id uuid not null,
      currency text not null,
      amount numeric(78, 0) not null,
      fee numeric(78, 0) not null,
      address text not null,
      status text not null,
      created_at bigint not null
    )`,
    `create index withdrawals_by_user on withdrawals (user_id, created_at desc)`,
    `
create table if not exists candles (
  pair_code text not null,
  level text not null,
  bucket_ms bigint not null,
  open_ticks bigint not null,
  high_ticks bigint not null,
  low_ticks bigint not null,
  close_ticks bigint not null,
  volume_lots numeric(78, 0) not null,
  volume_tick_lots numeric(78, 0) not null,
  first_seq bigint not null,
  last_seq bigint not null,
  primary key (pair_code, level, bucket_ms)
)`,
  ],
  [
    // Idempotent withdrawals: a client's retry with the same id returns the first withdrawal.
    `alter table withdrawals add column client_withdrawal_id text`,
    `create unique index withdrawals_client_id on withdrawals (user_id, client_withdrawal_id) where client_withdrawal_id is not null`,
  ],
  [
    // Fee holds for on-chain actions: held from a user's balance, then settled (burned) or released.
    `create table fee_holds (
      id uuid primary key,
      user_id uuid not null,
      currency text not null,
      amount numeric(78, 0) not null check (amount > 0),
      status text not null check (status in ('held', 'settled', 'released')),
      reference text,
      memo text,
      created_at bigint not null,
      resolved_at bigint
    )`,
    `create index fee_holds_open on fee_holds (created_at, id) where status = 'held'`,
  ],
  [
    // Web account sessions (Sign in with Ethereum): only the token's SHA-256 is kept.
    `create table web_sessions (
      token_hash text primary key,
      user_id uuid not null references users (id),
      created_at bigint not null,
      expires_at bigint not null,
      revoked_at bigint
    )`,
    `create index web_sessions_user on web_sessions (user_id) where revoked_at is null`,
    `create index users_address on users (address) where address is not null`,
  ],
  [
    // When a key last signed an accepted request (the web account's key list), written in batches.
    `alter table api_keys add column last_used_at bigint`,
  ],
  [
    // Spawned agent tokens listed by the exchange: the token contract a currency stands for, once per address.
    `alter table currencies add column contract_address text`,
    `create unique index currencies_contract_address on currencies (contract_address) where contract_address is not null`,
  ],
  [
    // Where the deposit watcher stopped on each chain: it resumes from here after a restart.
    `create table chain_cursors (
      chain_id integer primary key,
      block_number bigint not null,
      block_hash text not null,
      updated_at bigint not null
    )`,
  ],
];

/** SHA-256 (hex) of a migration's statements, exactly as written: what schema_migrations records. */
export function migrationChecksum(statements: readonly string[]): string {
  return createHash("sha256").update(JSON.stringify(statements), "utf8").digest("hex");
}

/**
 * Applies every migration the database has not seen; safe to run from several processes at once.
 * Throws, before touching anything, when a migration the database applied differs from the text
 * here (an edited release) or is unknown to this code (a newer release ran against it): the
 * schema is then not the one this code was written for.
 */
export async function migrate(db: Db): Promise<number> {
  await db.query(
    `create table if not exists schema_migrations (version integer primary key, applied_at bigint not null)`,
  );
  // Databases migrated before checksums were recorded get them on their next start: their text
  // is the one released, which this file keeps.
  await db.query(`alter table schema_migrations add column if not exists checksum text`);
  const checksums = MIGRATIONS.map(migrationChecksum);
  await db.transaction(async (tx) => {
    await tx.query(`select pg_advisory_xact_lock(727274)`);
    const rows = await tx.query<{ version: number; checksum: string | null }>(
      `select version, checksum from schema_migrations order by version`,
    );
    for (const row of rows) {
      const expected = checksums[row.version - 1];
      if (expected === undefined) {
        throw new Error(
          `exchange schema: the database has migration ${row.version}, which this code does not know (it has ${checksums.length}); run the newer release or restore the database`,
        );
      }
      if (row.checksum === null)
        await tx.query(`update schema_migrations set checksum = $1 where version = $2`, [expected, row.version]);
      else if (row.checksum !== expected) {
        throw new Error(
          `exchange schema: migration ${row.version} was applied with checksum ${row.checksum} but exchange/adapters/store/migrations.ts now has ${expected}; ` +
            `a released migration was edited. Restore its text and put the change in a new migration`,
        );
      }
    }
  });
  let applied = 0;
  for (const [index, statements] of MIGRATIONS.entries()) {
    const version = index + 1;
    const done = await db.transaction(async (tx) => {
      // Serialises concurrent starts on PostgreSQL (a no-op wait on single-connection PGlite).
      await tx.query(`select pg_advisory_xact_lock(727274)`);
      if ((await tx.query(`select 1 from schema_migrations where version = $1`, [version])).length > 0) return false;
      for (const statement of statements) await tx.query(statement);
      await tx.query(`insert into schema_migrations (version, applied_at, checksum) values ($1, $2, $3)`, [
        version,
        Date.now(),
        checksums[index],
      ]);
      return true;
    });
    if (done) applied++;
  }
  return applied;
}
