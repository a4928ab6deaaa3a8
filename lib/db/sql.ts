import { withDeadline } from "../deadline.ts";
import type { UnavailableError } from "../unavailable.ts";
import { openPgliteHere } from "./pglite.ts";
import { openPgliteThread } from "./pglite-client.ts";
import { assertSchemaName, createSchema, schemaPool } from "./postgres.ts";
import { asUnavailable, JOURNAL, unavailable } from "./unavailable.ts";
import type { Sql } from "./sql-types.ts";
import { readyPgliteDir, type UpgradeDb } from "./upgrade.ts";

export type { Sql } from "./sql-types.ts";

/**
 * A journal's small database (the relayer's, each agent account's): embedded PGlite in a
 * directory of its own (never Ponder's instance, whose one connection the indexer holds in
 * transactions), or its own schema on the PostgreSQL server of DATABASE_URL. Every statement has
 * a deadline: a database that stops answering fails the write with 503 instead of hanging it.
 */

export interface OpenSqlOptions {
  /** What its errors call the database: "relayer database", "agent alice's database". */
  readonly name: string;
  readonly databaseUrl?: string;
  readonly dataDir: string;
  readonly schema: string;
  readonly timeoutMs: number;
  /**
   * Creates or updates the tables (idempotent), run once the database is open. An embedded journal
   * of an older PGlite is copied into the new one with it (upgrade.ts); without it, such a journal
   * is refused.
   */
  readonly migrate?: (sql: Sql) => Promise<void>;
  /**
   * Where embedded PGlite runs: "thread" (default), a Node thread of its own, so its statements
   * never stall the caller's event loop; or "here", on the caller's thread, for a caller that is
   * itself a thread with little else to do (the writes' thread): each statement then saves two
   * messages between threads.
   */
  readonly embedded?: "thread" | "here";
}

export async function openSql(options: OpenSqlOptions): Promise<Sql> {
  assertSchemaName(options.schema);
  const down = (reason: unknown) => unavailable(reason, JOURNAL, `${options.name}: `);
  const sql = options.databaseUrl
    ? await openPostgres(options.databaseUrl, options, down)
    : await openPglite(options, down);
  try {
    await options.migrate?.(sql);
  } catch (error) {
    await sql.close().catch(() => {});
    throw error;
  }
  return sql;
}

/** `reason` as the database's UnavailableError, its message naming the database (OpenSqlOptions.name). */
type Down = (reason: unknown) => UnavailableError;

async function openPostgres(
  connectionString: string,
  { name, schema, timeoutMs }: OpenSqlOptions,
  down: Down,
): Promise<Sql> {
  const deadlines = { connectTimeoutMs: timeoutMs, queryTimeoutMs: timeoutMs };
  await createSchema(connectionString, schema, deadlines, down);
  const connections = schemaPool(connectionString, schema, deadlines, { max: 4 });
  return {
    async query<R>(text: string, params: readonly unknown[] = []) {
      try {
        return (await connections.query(text, params as unknown[])).rows as R[];
      } catch (error) {
        throw asUnavailable(error, JOURNAL, `${name}: `);
      }
    },
    close: () => connections.end(),
  };
}

/**
 * Embedded PGlite on a thread of its own (pglite-thread.ts): its statements then never
 * stall this thread's event loop. bench:agents measured the difference: with PGlite on the main
 * thread, each broadcast waited behind the statements of the writes in flight.
 */
async function openPglite(options: OpenSqlOptions, down: Down): Promise<Sql> {
  const { dataDir, schema, timeoutMs, migrate } = options;
  await readyPgliteDir(dataDir, schema, migrate && ((db) => migrate(sqlOf(db))));
  if (options.embedded === "here") return openPgliteOnThisThread(options, down);
  const thread = await openPgliteThread({ dataDir, schema, timeoutMs, down });
  return { query: (text, params) => thread.query(text, params), close: () => thread.close() };
}

/** Embedded PGlite on this thread: its statements run (synchronously) here, one at a time. */
async function openPgliteOnThisThread({ dataDir, schema, timeoutMs }: OpenSqlOptions, down: Down): Promise<Sql> {
  const db = await withDeadline(openPgliteHere(dataDir, schema), Math.max(timeoutMs, 30_000), () =>
    down(noAnswer(Math.max(timeoutMs, 30_000))),
  ).catch((error: unknown) => {
    throw down(error);
  });
  return {
    query: <R>(text: string, params: readonly unknown[] = []) =>
      withDeadline(
        db.query<R>(text, params as unknown[]).then(
          (result) => result.rows,
          (error: Error & { code?: string }) => {
            // A statement's own error carries its SQLSTATE; anything else is the database failing.
            if (typeof error?.code === "string") throw error;
            throw down(error);
          },
        ),
        timeoutMs,
        () => down(noAnswer(timeoutMs)),
      ),
    close: () => withDeadline(db.close(), timeoutMs, () => down(noAnswer(timeoutMs))).catch(() => {}),
  };
}

/** The upgrade's connection as the Sql surface a journal's migrations take. */
function sqlOf(db: UpgradeDb): Sql {
  return {
    query: async <R>(text: string, params: readonly unknown[] = []) =>
      (await db.query<R>(text, params as unknown[])).rows,
    close: async () => {},
  };
}

const noAnswer = (ms: number) => `no answer in ${ms} ms`;
