import { readFile, rename, rm, stat } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { PGlite as PGlite16 } from "pglite-0.2";

/**
 * The embedded databases moved from PGlite 0.2 (PostgreSQL 16) to PGlite 0.5 (PostgreSQL 18),
 * whose statements cost a quarter as much (an insert with its commit 0.8 -> 0.2 ms: 0.2 opened,
 * truncated and closed a file for every statement). Neither can open the other's data directory,
 * and the relayer's journal and the exchange's store hold what must not be forgotten (fee holds,
 * signed transactions, balances), so an old directory is copied, every row of one schema, into a
 * new one before its first use:
 *
 * 1. the old database is brought to the current schema by `prepare` (its owner's migrations),
 *    then every table is read as JSON text (exact: numerics, bytea and timestamps as PostgreSQL
 *    prints them) with every sequence's position;
 * 2. a new database is built in `<dir>.upgrading`: the tables by `prepare`, then each table's rows
 *    replace whatever `prepare` put there (a migrations table), then the sequences are set;
 * 3. `<dir>` is renamed `<dir>.pg16` (kept for the operator, never read again), then
 *    `<dir>.upgrading` is renamed `<dir>`.
 *
 * A crash before the first rename leaves the old directory as it was (the copy is redone); one
 * between the renames leaves only `<dir>.pg16`, which is moved back and copied again.
 */

/** The statements `prepare` may run: the surface PGlite 0.2 and 0.5 share. */
export interface UpgradeDb {
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
  exec(text: string): Promise<unknown>;
  transaction<T>(fn: (tx: Pick<UpgradeDb, "query" | "exec">) => Promise<T>): Promise<T | undefined>;
}

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

/**
 * Copies the schema `schema` of a PostgreSQL 16 directory `dataDir` into a PostgreSQL 18 one;
 * false if there was nothing to upgrade. `prepare` creates (or brings up to date) the schema's
 * tables, on the old database first and then on the new one; it runs with `search_path` set.
 */
export async function upgradePglite16(
  dataDir: string,
  schema: string,
  prepare: (db: UpgradeDb) => Promise<void>,
): Promise<boolean> {
  const legacy = `${dataDir}.pg16`;
  const building = `${dataDir}.upgrading`;
  if (!(await exists(dataDir)) && (await exists(legacy))) await rename(legacy, dataDir);
  if ((await dataDirVersion(dataDir)) !== "16") return false;

  const { tables, sequences } = await readOld(dataDir, schema, prepare);
  await rm(building, { recursive: true, force: true });
  const db = new PGlite(building);
  try {
    await db.exec(`create schema if not exists "${schema}"; set search_path to "${schema}"`);
    await prepare(db as unknown as UpgradeDb);
    // Rows go in table by table; foreign keys and triggers are not checked while they do (they held before).
    await db.exec("set session_replication_role = replica");
    if (tables.size > 0) await db.exec(`truncate ${[...tables.keys()].map((t) => `"${t}"`).join(", ")} cascade`);
    for (const [table, rows] of tables)
      await db.query(`insert into "${table}" select * from json_populate_recordset(null::"${table}", $1::json)`, [
        rows,
      ]);
    for (const { name, lastValue } of sequences)
      if (lastValue !== null)
        await db.query(`select setval($1, $2::bigint, true)`, [`"${schema}"."${name}"`, lastValue]);
  } finally {
    await db.close();
  }
  await rename(dataDir, legacy);
  await rename(building, dataDir);
  return true;
}

/** Every row of every table of `schema` (JSON text per table) and every sequence's position. */
async function readOld(dataDir: string, schema: string, prepare: (db: UpgradeDb) => Promise<void>) {
  const db = new PGlite16(dataDir);
  try {
    await db.exec(`create schema if not exists "${schema}"; set search_path to "${schema}"`);
    await prepare(db as unknown as UpgradeDb);
    const { rows: names } = await db.query<{ name: string }>(
      "select table_name as name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE' order by 1",
      [schema],
    );
    const tables = new Map<string, string>();
    for (const { name } of names) {
      const { rows } = await db.query<{ rows: string }>(
        `select coalesce(json_agg(t), '[]')::text as rows from "${schema}"."${name}" t`,
      );
      tables.set(name, rows[0]!.rows);
    }
    const { rows: sequences } = await db.query<{ name: string; lastValue: string | null }>(
      `select sequencename as name, last_value::text as "lastValue" from pg_sequences where schemaname = $1`,
      [schema],
    );
    return { tables, sequences };
  } finally {
    await db.close();
  }
}
