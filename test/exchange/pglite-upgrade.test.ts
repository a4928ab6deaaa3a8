/**
 * The exchange's embedded store moved from PGlite 0.2 (PostgreSQL 16) to 0.5 (PostgreSQL 18). A
 * store written by 0.2 is copied at the next start (lib/db/upgrade.ts): every row and every
 * sequence, so balances, orders, deals, the ledger and an open fee hold are as they were, and the
 * next ledger entry continues the old numbering. The old store is made here the way the previous
 * version left it: this code's schema (its migrations, run on PGlite 0.2) holding a real
 * exchange's rows.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGlite as PGlite16 } from "pglite-0.2";
import { afterAll, describe, it } from "vitest";
import { seedFixtureBeforeLoad } from "../../support/exchange/fixture-market.ts";
import { type Db, migrate, openDb } from "../../exchange/adapters/store/index.ts";
import { type RunningExchange, startExchange } from "../../exchange/server/start.ts";
import { type Backend, createBackend } from "../../support/exchange/backends.ts";
import { type Credentials, SigningClient } from "../../support/exchange/signing-client.ts";

const quiet = () => {};
let backend: Backend | undefined;
afterAll(() => backend?.cleanup());

type Any = PGlite | PGlite16;
const tablesOf = async (db: Any, schema: string) =>
  (
    await db.query<{ name: string }>(
      "select table_name as name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE' order by 1",
      [schema],
    )
  ).rows.map((r) => r.name);
const dump = async (db: Any, schema: string) => {
  const out: Record<string, string> = {};
  for (const table of await tablesOf(db, schema))
    out[table] = (
      await db.query<{ rows: string }>(
        `select coalesce(json_agg(t order by t::text), '[]')::text as rows from "${schema}"."${table}" t`,
      )
    ).rows[0]!.rows;
  const sequences = await db.query<{ name: string; last: string | null }>(
    "select sequencename as name, last_value::text as last from pg_sequences where schemaname = $1 order by 1",
    [schema],
  );
  return { tables: out, sequences: sequences.rows };
};

/** The old version's store: PGlite 0.2, this code's migrations, then the rows of `from`. */
async function writeAsPglite02(from: string, to: string, schema: string) {
  const source = new PGlite(from);
  const { tables, sequences } = await dump(source, schema);
  await source.close();
  const old = new PGlite16(to);
  await old.exec(`create schema "${schema}"; set search_path to "${schema}"`);
  const run = async <R>(client: Pick<PGlite16, "query">, sql: string, params?: unknown[]) =>
    (await client.query<R>(sql, params)).rows;
  await migrate({
    kind: "pglite",
    query: (sql, params) => run(old, sql, params),
    writer: { query: (sql, params) => run(old, sql, params) },
    transaction: async (fn) => (await old.transaction((tx) => fn({ query: (sql, params) => run(tx, sql, params) })))!,
    fence: async () => {},
    close: () => old.close(),
  } satisfies Db);
  await old.exec(
    `set session_replication_role = replica; truncate ${Object.keys(tables)
      .map((t) => `"${t}"`)
      .join(", ")}`,
  );
  for (const [table, rows] of Object.entries(tables))
    await old.query(`insert into "${table}" select * from json_populate_recordset(null::"${table}", $1::json)`, [rows]);
  for (const { name, last } of sequences)
    if (last !== null) await old.query("select setval($1, $2::bigint)", [name, last]);
  await old.close();
}

describe("an exchange store written by PGlite 0.2", () => {
  it("is copied at the next start: every row, the sequences, balances, orders and an open fee hold", async () => {
    backend = await createBackend("pglite");
    const dir = backend.env.EXCHANGE_DATA_DIR;
    const schema = backend.env.EXCHANGE_DB_SCHEMA;
    let server: RunningExchange = await startExchange(backend.env, { log: quiet, beforeLoad: seedFixtureBeforeLoad });
    let api = new SigningClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!);
    const secret = backend.env.EXCHANGE_SERVICE_SECRET!;
    const internal = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-secret": secret },
        body: JSON.stringify(body),
      });

    const seller = await api.user(25, { ALPHA: "100", ETH: "1" });
    const buyer = await api.user(25, { USDT: "100", ETH: "1" });
    const ask = await api.signed(seller, "POST", "/api/orders", {
      isBid: false,
      currencyPairCode: "ALPHA_USDT",
      amount: 10,
      price: 0.5,
    });
    assert.equal(ask.status, 201, ask.text);
    const bid = await api.signed(buyer, "POST", "/api/orders", {
      isBid: true,
      currencyPairCode: "ALPHA_USDT",
      amount: 4,
      price: 0.6,
    });
    assert.equal(bid.body.status, "filled", bid.text);
    const holdId = randomUUID();
    const hold = await internal("/internal/fee-holds", {
      holdId,
      userId: buyer.userId,
      currency: "ETH",
      amount: "0.25",
    });
    assert.equal(hold.status, 201, await hold.text());
    const seen = async (who: Credentials) => ({
      balances: (await api.signed(who, "GET", "/api/balances")).body,
      orders: (await api.signed(who, "GET", "/api/orders")).body,
    });
    const before = { seller: await seen(seller), buyer: await seen(buyer) };
    await server.close();

    // What the previous version left: a PostgreSQL 16 directory with these rows.
    const written = new PGlite(dir);
    const rows = await dump(written, schema);
    await written.close();
    await rename(dir, `${dir}.source`);
    await writeAsPglite02(`${dir}.source`, dir, schema);
    await rm(`${dir}.source`, { recursive: true });
    assert.equal(readFileSync(join(dir, "PG_VERSION"), "utf8").trim(), "16");

    // Opening it copies it: every row and sequence as the old store had them.
    await (await openDb({ dataDir: dir, schema })).close();
    assert.equal(readFileSync(join(dir, "PG_VERSION"), "utf8").trim(), "18");
    assert.equal(readFileSync(join(`${dir}.pg16`, "PG_VERSION"), "utf8").trim(), "16");
    assert.equal(existsSync(`${dir}.upgrading`), false);
    const upgraded = new PGlite(dir);
    assert.deepEqual(await dump(upgraded, schema), rows);
    await upgraded.close();

    server = await startExchange(backend.env, { log: quiet, beforeLoad: seedFixtureBeforeLoad });
    api = new SigningClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!);
    assert.deepEqual({ seller: await seen(seller), buyer: await seen(buyer) }, before);
    // The open hold is still held, and settles.
    const settled = await internal(`/internal/fee-holds/${holdId}/settle`, {});
    assert.equal(settled.status, 200, await settled.text());
    const deposit = await api.admin("POST", "/admin/deposits", {
      userId: seller.userId,
      currencyCode: "USDT",
      amount: "1",
    });
    assert.equal(deposit.status, 201, deposit.text);
    await server.close();

    // The settle's and the deposit's ledger entries continue the old numbering.
    const after = new PGlite(dir);
    try {
      const entries = (
        await after.query<{ seq: string }>(`select seq::text from "${schema}".ledger_entries order by seq`)
      ).rows;
      const oldLast = BigInt(rows.sequences.find((s) => s.name === "ledger_entries_seq_seq")!.last!);
      assert.deepEqual(
        entries.map((e) => BigInt(e.seq)).filter((seq) => seq > oldLast),
        [oldLast + 1n, oldLast + 2n],
      );
    } finally {
      await after.close();
    }
  });
});
