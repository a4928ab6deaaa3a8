import { readFile, rename, rm, stat } from "node:fs/promises";
import { PGlite as PGlite16 } from "pglite-0.2";
import { PGlite } from "@electric-sql/pglite";
import type { Sql } from "./sql-types.ts";

/**
 * The embedded journal moved from PGlite 0.2 (PostgreSQL 16) to PGlite 0.5 (PostgreSQL 18), whose
 * statements cost a quarter as much (an insert 0.8 -> 0.2 ms: 0.2 opened, truncated and closed a
 * file for every statement). Neither can open the other's data directory, and a journal holds
 * what must not be forgotten (fee holds, signed transactions), so an old one is copied row by row
 * into a new one before its first use:
 *
 * 1. a new database is built in `<dir>.upgrading`: the tables by `migrate`, then every row;
 * 2. `<dir>` is renamed `<dir>.pg16` (kept for the operator, never read again), then
 *    `<dir>.upgrading` is renamed `<dir>`.
 *
 * A crash before the first rename leaves the old directory as it was (the copy is redone); one
 * between the renames leaves only `<dir>.pg16`, which is moved back and copied again.
 */

/** The PostgreSQL major version of the data directory `dir`, or undefined if there is none. */
export async function dataDirVersion(dir: string): Promise<string | undefined> {
  try {
    return (await readFile(`${dir}/PG_VERSION`, "utf8")).trim();
  } catch {
    return undefined;
  }
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** Copies a PostgreSQL 16 journal in `dataDir` into a PostgreSQL 18 one; false if there was none. */
export async function upgradeLegacyJournal(
  dataDir: string,
  schema: string,
  migrate: (sql: Sql) => Promise<void>,
): Promise<boolean> {
  const legacy = `${dataDir}.pg16`;
  const building = `${dataDir}.upgrading`;
  if (!(await exists(dataDir)) && (await exists(legacy))) await rename(legacy, dataDir);
  if ((await dataDirVersion(dataDir)) !== "16") return false;

  const tables = await readTables(dataDir, schema);
  await rm(building, { recursive: true, force: true });
  const db = new PGlite(building);
  try {
    await db.exec(`create schema if not exists "${schema}"; set search_path to "${schema}"`);
    await migrate({
      query: async <R>(text: string, params: readonly unknown[] = []) =>
        (await db.query<R>(text, params as unknown[])).rows,
      close: async () => {},
    });
    // Rows go in table by table; foreign keys are not checked while they do (they held before).
    await db.exec("set session_replication_role = replica");
    for (const [table, rows] of tables)
      if (rows.length > 0)
        await db.query(`insert into "${table}" select * from json_populate_recordset(null::"${table}", $1::json)`, [
          JSON.stringify(rows, (_, v) => (typeof v === "bigint" ? v.toString() : v)),
        ]);
  } finally {
    await db.close();
  }
  await rename(dataDir, legacy);
  await rename(building, dataDir);
  return true;
}

/** Every row of every table of `schema` in an old journal. */
async function readTables(dataDir: string, schema: string): Promise<Map<string, unknown[]>> {
  const db = new PGlite16(dataDir);
  try {
    const { rows: names } = await db.query<{ name: string }>(
      "select table_name as name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE'",
      [schema],
    );
    const tables = new Map<string, unknown[]>();
    for (const { name } of names) tables.set(name, (await db.query(`select * from "${schema}"."${name}"`)).rows);
    return tables;
  } finally {
    await db.close();
  }
}
