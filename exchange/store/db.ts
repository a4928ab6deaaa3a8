import { mkdir } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import type { Db, Queryable, QueryOptions } from "./types.ts";

// One database surface over both backends. Every statement runs with `search_path` set to the
// exchange's schema, so SQL elsewhere names bare tables and the same code serves either.

export interface OpenDbOptions {
  /** PostgreSQL connection string; unset opens embedded PGlite in `dataDir`. */
  readonly databaseUrl?: string;
  readonly dataDir: string;
  /** Schema of every table (validated as a lower-case identifier by config/env.ts). */
  readonly schema: string;
  /** Pool size on PostgreSQL. */
  readonly maxConnections?: number;
}

export async function openDb(options: OpenDbOptions): Promise<Db> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(options.schema)) throw new Error(`invalid schema name ${options.schema}`);
  return options.databaseUrl ? openPostgres(options.databaseUrl, options.schema, options.maxConnections ?? 8) : openPglite(options.dataDir, options.schema);
}

async function openPostgres(connectionString: string, schema: string, max: number): Promise<Db> {
  const bootstrap = new pg.Client({ connectionString });
  await bootstrap.connect();
  try {
    await bootstrap.query(`create schema if not exists "${schema}"`);
  } finally {
    await bootstrap.end();
  }
  const pool = new pg.Pool({ connectionString, max, options: `-c search_path="${schema}"` });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  const run = async <R>(client: pg.Pool | pg.PoolClient, sql: string, params?: unknown[], options?: QueryOptions) =>
    (await client.query(options?.name ? { name: options.name, text: sql, values: params } : { text: sql, values: params })).rows as R[];
  return {
    kind: "postgres",
    query: (sql, params, options) => run(pool, sql, params, options),
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query("begin");
        const result = await fn({ query: (sql, params, options) => run(client, sql, params, options) });
        await client.query("commit");
        return result;
      } catch (error) {
        await client.query("rollback").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

async function openPglite(dataDir: string, schema: string): Promise<Db> {
  await mkdir(dataDir, { recursive: true });
  const db = new PGlite(dataDir);
  await db.waitReady;
  await db.exec(`create schema if not exists "${schema}"; set search_path to "${schema}"`);
  const run = async <R>(client: Pick<PGlite, "query">, sql: string, params?: unknown[]) => (await client.query<R>(sql, params)).rows;
  return {
    kind: "pglite",
    query: (sql, params) => run(db, sql, params),
    // PGlite types the result as possibly undefined (a transaction closed early); ours never closes early.
    transaction: async (fn) => (await db.transaction((tx) => fn({ query: (sql, params) => run(tx, sql, params) } satisfies Queryable)))!,
    close: () => db.close(),
  };
}
