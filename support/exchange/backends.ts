/**
 * The exchange end-to-end tests run on embedded PGlite (a fresh directory) always and on
 * PostgreSQL (a fresh schema) when DATABASE_URL is set, as CI does.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { exchangeEnv, parseEnv, type ExchangeEnv } from "../../config/env.ts";

export interface Backend {
  readonly kind: "pglite" | "postgres";
  /** Environment of an exchange on this backend (a private data dir or schema). */
  readonly env: ExchangeEnv;
  /** Raw environment variables, for starting the server as a child process. */
  readonly vars: Record<string, string>;
  cleanup(): Promise<void>;
}

let counter = 0;

export async function createBackend(kind: "pglite" | "postgres", extra: Record<string, string> = {}): Promise<Backend> {
  const dir = await mkdtemp(join(tmpdir(), `exchange-${kind}-`));
  const schema = `x_test_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const vars: Record<string, string> = {
    EXCHANGE_PORT: "0",
    EXCHANGE_DATA_DIR: join(dir, "exchange"),
    EXCHANGE_SERVER_KEY: "11".repeat(32),
    EXCHANGE_ADMIN_TOKEN: "admin-token-for-tests-only",
    EXCHANGE_SERVICE_SECRET: "service-secret-for-tests-only",
    RATE_LIMIT_PER_MINUTE: "100000",
    SIGNED_RATE_LIMIT_PER_MINUTE: "100000",
    AUTH_FAILURE_LIMIT_PER_MINUTE: "100000",
    ...extra,
  };
  if (kind === "postgres") {
    // `extra` may point the exchange elsewhere (a fault-injecting proxy); cleanup still goes direct.
    vars.DATABASE_URL = extra.DATABASE_URL ?? process.env.DATABASE_URL!;
    vars.EXCHANGE_DB_SCHEMA = schema;
  }
  return {
    kind,
    env: parseEnv(exchangeEnv, vars),
    vars,
    cleanup: async () => {
      if (kind === "postgres") {
        const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
        await client.connect();
        await client.query(`drop schema if exists "${schema}" cascade`);
        await client.end();
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export function backendKinds(): ("pglite" | "postgres")[] {
  return process.env.DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];
}
