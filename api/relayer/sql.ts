import { mkdir } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";

/**
 * The relayer's own small database: embedded PGlite in a directory of its own (never Ponder's
 * instance, whose one connection the indexer holds in transactions), or its own schema on the
 * PostgreSQL server of DATABASE_URL. Every statement has a deadline: a database that stops
 * answering fails the write with 503 instead of hanging it.
 */
export interface Sql {
  query<R>(text: string, params?: readonly unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

export interface OpenSqlOptions {
  readonly databaseUrl?: string;
  readonly dataDir: string;
  readonly schema: string;
  readonly timeoutMs: number;
}

export class SqlUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SqlUnavailableError";
  }
}

export async function openSql(options: OpenSqlOptions): Promise<Sql> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(options.schema)) throw new Error(`invalid schema name ${options.schema}`);
  return options.databaseUrl ? openPostgres(options.databaseUrl, options) : openPglite(options);
}

async function openPostgres(connectionString: string, { schema, timeoutMs }: OpenSqlOptions): Promise<Sql> {
  const timeouts = {
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs + 1_000,
    keepAlive: true,
  };
  const bootstrap = new pg.Client({ connectionString, ...timeouts });
  bootstrap.on("error", () => {});
  try {
    await bootstrap.connect();
    await bootstrap.query(`create schema if not exists "${schema}"`);
  } catch (error) {
    throw new SqlUnavailableError(`relayer database: ${(error as Error).message}`, { cause: error });
  } finally {
    await bootstrap.end().catch(() => {});
  }
  const pool = new pg.Pool({ connectionString, max: 4, options: `-c search_path="${schema}"`, ...timeouts });
  pool.on("error", () => {});
  return {
    async query<R>(text: string, params: readonly unknown[] = []) {
      try {
        return (await pool.query(text, params as unknown[])).rows as R[];
      } catch (error) {
        if (isConnectionFailure(error))
          throw new SqlUnavailableError(`relayer database: ${(error as Error).message}`, { cause: error });
        throw error;
      }
    },
    close: () => pool.end(),
  };
}

async function openPglite({ dataDir, schema, timeoutMs }: OpenSqlOptions): Promise<Sql> {
  await mkdir(dataDir, { recursive: true });
  const db = new PGlite(dataDir);
  await db.query(`create schema if not exists "${schema}"`);
  await db.query(`set search_path to "${schema}"`);
  return {
    async query<R>(text: string, params: readonly unknown[] = []) {
      return (await withDeadline(db.query<R>(text, params as unknown[]), timeoutMs)).rows;
    },
    close: () => db.close(),
  };
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SqlUnavailableError(`relayer database: no answer in ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Errors of the connection (refused, reset, timed out), as opposed to a statement's own error. */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  if (typeof code === "string" && /^(08|57P0|53)/.test(code)) return true;
  const message = (error as Error)?.message ?? "";
  return /timeout|ECONNREFUSED|ECONNRESET|Connection terminated|EPIPE|ETIMEDOUT/i.test(message);
}
