import pg from "pg";

/**
 * What both database surfaces (lib/db/sql.ts, exchange/adapters/store/db.ts) share on
 * PostgreSQL: the schema created on a connection of its own, and pools whose every session has
 * `search_path` set to it, with deadlines at both ends.
 */

export interface PgDeadlines {
  /** Most ms to open a connection (TCP and start-up), or to wait for a pooled one. */
  readonly connectTimeoutMs: number;
  /** Most ms a statement may run (server-side statement_timeout) or wait for its answer (client-side). */
  readonly queryTimeoutMs: number;
}

function timeoutsOf({ connectTimeoutMs, queryTimeoutMs }: PgDeadlines) {
  return {
    connectionTimeoutMillis: connectTimeoutMs,
    // Both ends: the server cancels a statement that runs too long; the client stops waiting for
    // an answer that a dead network will never bring (the server's timeout cannot reach it then).
    statement_timeout: queryTimeoutMs,
    query_timeout: queryTimeoutMs + 1_000,
    keepAlive: true,
  };
}

/** Creates `schema` if it is not there, on a connection of its own; `failed` maps its error. */
export async function createSchema(
  connectionString: string,
  schema: string,
  deadlines: PgDeadlines,
  failed: (error: unknown) => unknown,
): Promise<void> {
  const bootstrap = new pg.Client({ connectionString, ...timeoutsOf(deadlines) });
  bootstrap.on("error", () => {});
  try {
    await bootstrap.connect();
    await bootstrap.query(`create schema if not exists "${schema}"`);
  } catch (error) {
    throw failed(error);
  } finally {
    await bootstrap.end().catch(() => {});
  }
}

/** A pool on `schema`: an idle client losing its connection never crashes the process (the next query reconnects). */
export function schemaPool(
  connectionString: string,
  schema: string,
  deadlines: PgDeadlines,
  pool: { readonly max: number; readonly applicationName?: string },
): pg.Pool {
  const created = new pg.Pool({
    connectionString,
    max: pool.max,
    options: `-c search_path="${schema}"`,
    ...(pool.applicationName === undefined ? {} : { application_name: pool.applicationName }),
    ...timeoutsOf(deadlines),
  });
  created.on("error", () => {});
  return created;
}

/** Schemas are interpolated into statements: only lower-case identifiers are accepted. */
export function assertSchemaName(schema: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
}
