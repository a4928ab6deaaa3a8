import { existsSync } from "node:fs";
import { cp, mkdir, rename, rm } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { PGlite as PGlite16 } from "pglite-0.2";
import { dataDirVersion, keptDirName } from "./data-dir.ts";

export { dataDirVersion } from "./data-dir.ts";

/**
 * The embedded databases moved from PGlite 0.2 (PostgreSQL 16) to PGlite 0.5 (PostgreSQL 18),
 * whose statements cost a quarter as much (an insert with its commit 0.8 -> 0.2 ms: 0.2 opened,
 * truncated and closed a file for every statement). Neither can open the other's data directory,
 * and the relayer's journal and the exchange's store hold what must not be forgotten (fee holds,
 * signed transactions, balances), so an old directory is copied, every row of one schema, into a
 * new one before its first use:
 *
 * 1. a copy of the old directory (`<dir>.pg16.reading`) is brought to the current schema by
 *    `prepare` (its owner's migrations); the old directory itself stays as its release left it;
 * 2. a new database is built in `<dir>.upgrading`: the tables by `prepare`, then each table's rows
 *    replace whatever `prepare` put there (a migrations table), read from the copy as JSON text
 *    (exact: numerics, bytea and timestamps as PostgreSQL prints them) 5,000 rows at a time, so
 *    memory does not grow with the tables; then every sequence is set as it was;
 * 3. `<dir>` is renamed `<dir>.pg16.moving`, `<dir>.upgrading` is renamed `<dir>`, and
 *    `<dir>.pg16.moving` is renamed `<dir>.pg16` (or `.pg16.2`, ... if taken): kept for the
 *    operator, never read again. Deleting `<dir>` later starts afresh; it does not bring it back.
 *
 * A crash before step 3 leaves the old directory as it was (the copy is redone); one within it
 * leaves `<dir>.pg16.moving`, from which the upgrade is redone or finished.
 *
 * Limits (none of the tables it copies has them): partitioned tables and generated or identity
 * columns are not supported.
 */

/** The statements `prepare` may run: the surface PGlite 0.2 and 0.5 share. */
export interface UpgradeDb {
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
  exec(text: string): Promise<unknown>;
  transaction<T>(fn: (tx: Pick<UpgradeDb, "query" | "exec">) => Promise<T>): Promise<T | undefined>;
}

/** Rows read and written at a time. */
const BATCH = 5_000;

/**
 * Copies the schema `schema` of a PostgreSQL 16 directory `dataDir` into a PostgreSQL 18 one;
 * false if there was nothing to upgrade. `prepare` creates (or brings up to date) the schema's
 * tables, on a copy of the old database first and then on the new one; it runs with
 * `search_path` set.
 */
export async function upgradePglite16(
  dataDir: string,
  schema: string,
  prepare: (db: UpgradeDb) => Promise<void>,
): Promise<boolean> {
  const moving = `${dataDir}.pg16.moving`;
  const building = `${dataDir}.upgrading`;
  const reading = `${dataDir}.pg16.reading`;
  if (existsSync(moving)) {
    // A crash in the renames: the new directory in place (finish), or not yet (redo).
    if (existsSync(dataDir)) {
      await rename(moving, keptDirName(dataDir, "16"));
      return true;
    }
    await rename(moving, dataDir);
  }
  if (dataDirVersion(dataDir) !== "16") return false;

  await rm(reading, { recursive: true, force: true });
  await rm(building, { recursive: true, force: true });
  await cp(dataDir, reading, { recursive: true });
  const old = new PGlite16(reading);
  const db = new PGlite(building);
  try {
    for (const each of [old, db] as unknown as UpgradeDb[]) {
      await each.exec(`create schema if not exists "${schema}"; set search_path to "${schema}"`);
      await prepare(each);
    }
    await copyRows(old, db, schema);
  } finally {
    await db.close();
    await old.close();
    await rm(reading, { recursive: true, force: true });
  }
  await rename(dataDir, moving);
  await rename(building, dataDir);
  await rename(moving, keptDirName(dataDir, "16"));
  return true;
}

/** Every row of every table of `schema`, a batch at a time, then every sequence's state. */
async function copyRows(from: PGlite16, to: PGlite, schema: string): Promise<void> {
  const { rows: tables } = await from.query<{ name: string }>(
    "select table_name as name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE' order by 1",
    [schema],
  );
  // Rows go in table by table; foreign keys and triggers are not checked while they do (they held before).
  await to.exec("set session_replication_role = replica");
  if (tables.length > 0) await to.exec(`truncate ${tables.map((t) => `"${t.name}"`).join(", ")} cascade`);
  for (const { name } of tables) {
    for (let after = "(0,0)"; ; ) {
      const { rows } = await from.query<{ at: string; row: string }>(
        `select ctid::text as at, row_to_json(pglite_upgrade_row)::text as row from "${schema}"."${name}" pglite_upgrade_row where ctid > $1::tid order by ctid limit ${BATCH}`,
        [after],
      );
      if (rows.length === 0) break;
      await to.query(`insert into "${name}" select * from json_populate_recordset(null::"${name}", $1::json)`, [
        `[${rows.map((r) => r.row).join(",")}]`,
      ]);
      after = rows.at(-1)!.at;
    }
  }
  const { rows: sequences } = await from.query<{ name: string }>(
    "select sequencename as name from pg_sequences where schemaname = $1 order by 1",
    [schema],
  );
  for (const { name } of sequences) {
    const sequence = `"${schema}"."${name}"`;
    const [state] = (
      await from.query<{ lastValue: string; isCalled: boolean }>(
        `select last_value::text as "lastValue", is_called as "isCalled" from ${sequence}`,
      )
    ).rows;
    await to.query("select setval($1, $2::bigint, $3)", [sequence, state!.lastValue, state!.isCalled]);
  }
}

/**
 * Makes `dataDir` ready for PGlite 0.5 (PostgreSQL 18) with the owner's tables in `schema`: a
 * directory of PGlite 0.2 (PostgreSQL 16) from an earlier version is copied into a new one first,
 * every row (upgradePglite16; the old one kept beside it as `<dir>.pg16`). Without `prepare` (the
 * owner's migrations) such a directory is refused rather than copied with no tables to copy into.
 * Returns whether it was upgraded.
 */
export async function readyPgliteDir(
  dataDir: string,
  schema: string,
  prepare: ((db: UpgradeDb) => Promise<void>) | undefined,
): Promise<boolean> {
  let upgraded = false;
  if (prepare) upgraded = await upgradePglite16(dataDir, schema, prepare);
  else if (dataDirVersion(dataDir) === "16")
    throw new Error(
      `${dataDir} holds a database of PGlite 0.2 (PostgreSQL 16): open it with a migrate step to upgrade it`,
    );
  await mkdir(dataDir, { recursive: true });
  return upgraded;
}
