import { UnavailableError } from "../../../lib/unavailable.ts";
import { randomBytes } from "node:crypto";
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import { assertSchemaName, createSchema, readyPgliteDir, schemaPool } from "../../../lib/db/index.ts";
import { openPgliteThread } from "../../../lib/db/pglite-client.ts";
import { unavailable } from "../../../lib/db/unavailable.ts";
import { migrate } from "./migrations.ts";
import { asUnavailable } from "../../../lib/db/index.ts";
import type { Db, Queryable, QueryOptions } from "./types.ts";

// One database surface over both backends. Every statement runs with `search_path` set to the
// exchange's schema, so SQL elsewhere names bare tables and the same code serves either.

export interface OpenDbOptions {
  /** PostgreSQL connection string; unset opens embedded PGlite in `dataDir`. */
  readonly databaseUrl?: string;
  readonly dataDir: string;
  /** Schema of every table (validated as a lower-case identifier by config/env.ts). */
  readonly schema: string;
  /** Connection pool size on PostgreSQL. */
  readonly maxConnections?: number;
  /** PostgreSQL: most ms to open a connection (TCP and start-up), or to wait for a pooled one (then only that statement fails). */
  readonly connectTimeoutMs?: number;
  /** Most ms a statement may run (PostgreSQL: server-side statement_timeout) or wait for its answer (both databases). */
  readonly queryTimeoutMs?: number;
}

export const DB_DEFAULTS = { maxConnections: 8, connectTimeoutMs: 5_000, queryTimeoutMs: 10_000 } as const;

export async function openDb(options: OpenDbOptions): Promise<Db> {
  assertSchemaName(options.schema);
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options)
    : openPglite(options.dataDir, options.schema, options.queryTimeoutMs ?? DB_DEFAULTS.queryTimeoutMs);
}

async function openPostgres(connectionString: string, options: OpenDbOptions): Promise<Db> {
  const { schema } = options;
  const connectTimeoutMs = options.connectTimeoutMs ?? DB_DEFAULTS.connectTimeoutMs;
  const queryTimeoutMs = options.queryTimeoutMs ?? DB_DEFAULTS.queryTimeoutMs;
  const deadlines = { connectTimeoutMs, queryTimeoutMs };
  await createSchema(connectionString, schema, deadlines, asUnavailable);
  // Sessions are tagged so fence() can find this process's older sessions on the server.
  const tag = `${`exchange ${schema}`.slice(0, 40)} ${randomBytes(6).toString("hex")}`;
  let generation = 0;
  /** Whether the current connections ever had a session on the server (a statement could only go there). */
  let connected = false;
  const sqlPool = (max: number) => {
    const created = schemaPool(connectionString, schema, deadlines, { max, applicationName: `${tag} ${generation}` });
    created.on("connect", () => (connected = true));
    return created;
  };
  // The group committer writes one batch at a time on a connection of its own, so no burst of
  // reads holding every pooled connection can make a commit wait for one (and time out).
  const newSqlPools = () => {
    connected = false;
    // One generation for both: fence() keeps only the current generation's sessions.
    generation++;
    return { connections: sqlPool(options.maxConnections ?? DB_DEFAULTS.maxConnections), writer: sqlPool(1) };
  };
  let { connections, writer } = newSqlPools();
  const run = async <R>(client: pg.Pool | pg.PoolClient, sql: string, params?: unknown[], options?: QueryOptions) => {
    try {
      return (
        await client.query(
          options?.name ? { name: options.name, text: sql, values: params } : { text: sql, values: params },
        )
      ).rows as R[];
    } catch (error) {
      throw asUnavailable(error);
    }
  };
  return {
    kind: "postgres",
    query: (sql, params, options) => run(connections, sql, params, options),
    writer: { query: (sql, params, options) => run(writer, sql, params, options) },
    async transaction(fn) {
      let client: pg.PoolClient;
      try {
        client = await connections.connect();
      } catch (error) {
        throw asUnavailable(error);
      }
      // A checked-out client has no listener of its connection pool: a connection reset would be an uncaught 'error'.
      let broken: Error | undefined;
      const onError = (error: Error) => (broken = error);
      client.on("error", onError);
      try {
        await run(client, "begin");
        const result = await fn({ query: (sql, params, options) => run(client, sql, params, options) });
        await run(client, "commit");
        return result;
      } catch (error) {
        const failure = asUnavailable(error);
        // A connection that lost its server or timed out may still be busy: never reuse it.
        if (failure instanceof UnavailableError) broken ??= failure;
        else await client.query("rollback").catch(() => {});
        throw failure;
      } finally {
        client.release(broken);
        client.removeListener("error", onError);
      }
    },
    async fence() {
      // Drop every pooled connection: after an outage they may be half-dead. A connection pool
      // that never reached the server (as a failed probe leaves it) has no session to fence: keep
      // it rather than pile up one per probe.
      if (connected) {
        const old = [connections, writer];
        ({ connections, writer } = newSqlPools());
        for (const each of old) each.end().catch(() => {});
      }
      // A statement sent before the outage can still reach the server when the network heals and
      // commit after a reload has read the database. Ending those sessions on the server (and
      // waiting until they are gone) settles every such statement: committed or rolled back.
      const others = `from pg_stat_activity where application_name like $1 and application_name <> $2 and pid <> pg_backend_pid()`;
      const params = [`${tag} %`, `${tag} ${generation}`];
      await run(connections, `select pg_terminate_backend(pid) ${others}`, params);
      const deadline = Date.now() + queryTimeoutMs;
      for (;;) {
        const [{ left }] = await run<{ left: number }>(connections, `select count(*)::int as left ${others}`, params);
        if (left === 0) return;
        if (Date.now() > deadline)
          throw new UnavailableError(
            "exchange database",
            `${left} earlier sessions did not end within ${queryTimeoutMs} ms`,
          );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: async () => void (await Promise.all([connections.end(), writer.end()])),
  };
}

/**
 * Embedded PGlite 0.5 (PostgreSQL 18): a statement costs a quarter of PGlite 0.2's, and every
 * order commits. A directory of 0.2 (PostgreSQL 16) from an earlier version is copied into a new
 * one first, every row, both brought to this code's schema (lib/db/upgrade.ts; kept beside it
 * as `<dir>.pg16`).
 *
 * It runs on a thread of its own (lib/db/pglite-client.ts): PGlite's WebAssembly Postgres is
 * synchronous, and on the event loop every group commit stopped matching, HTTP and every
 * WebSocket write while it ran (100-600 ms stalls under load, issue 29).
 */
async function openPglite(dataDir: string, schema: string, timeoutMs: number): Promise<Db> {
  const upgraded = await readyPgliteDir(dataDir, schema, async (db) => {
    await migrate(pgliteDb(db as unknown as PGlite));
  });
  if (upgraded)
    console.log(`exchange: ${dataDir} was copied from PGlite 0.2 (PostgreSQL 16); the old one is ${dataDir}.pg16`);
  const thread = await openPgliteThread({
    dataDir,
    schema,
    timeoutMs,
    down: (reason) => unavailable(reason, "exchange database", "The database is unavailable: "),
  });
  const surface: Queryable = { query: (sql, params) => thread.query(sql, params) };
  return {
    kind: "pglite",
    query: surface.query,
    // One connection: reads and commits take turns on it whatever the surface.
    writer: surface,
    transaction: (fn) => thread.transaction((query) => fn({ query: (sql, params) => query(sql, params) })),
    // One connection: any write still running finishes before the next statement.
    fence: async () => void (await thread.query("select 1")),
    close: () => thread.close(),
  };
}

/** The store's surface over one PGlite connection on this thread (search_path already set): migrations at open. */
function pgliteDb(db: PGlite): Db {
  const run = async <R>(client: Pick<PGlite, "query">, sql: string, params?: unknown[]) =>
    (await client.query<R>(sql, params)).rows;
  return {
    kind: "pglite",
    query: (sql, params) => run(db, sql, params),
    writer: { query: (sql, params) => run(db, sql, params) },
    // PGlite types the result as possibly undefined (a transaction closed early); ours never closes early.
    transaction: async (fn) =>
      (await db.transaction((tx) => fn({ query: (sql, params) => run(tx, sql, params) } satisfies Queryable)))!,
    fence: async () => void (await db.query("select 1")),
    close: () => db.close(),
  };
}
