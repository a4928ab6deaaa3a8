import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { exchangeEnv, parseEnv } from "../../../config/env.ts";
import { seedFixtureBeforeLoad } from "../../../support/exchange/fixture-market.ts";
import { startExchange, type RunningExchange } from "../../../exchange/server/start.ts";
import type { BenchConfig } from "./config.ts";

// An exchange in this process on a throw-away database: PGlite in a temp dir, or a fresh schema
// of DATABASE_URL. The public rate limit is lifted: the bench measures the endpoints, not the
// limiter answering 429 (the healthcheck, exempt from it, would otherwise be the only fair one).

export interface BenchExchange {
  readonly running: RunningExchange;
  readonly backend: "pglite" | "postgres";
  /** Stops the server and removes the temp dir and the schema. */
  close(): Promise<void>;
}

export async function startBenchExchange(cfg: BenchConfig): Promise<BenchExchange> {
  const dir = await mkdtemp(join(tmpdir(), "bench-marketdata-"));
  const schema = `bench_marketdata_${process.pid}_${Date.now().toString(36)}`;
  const vars: Record<string, string> = {
    EXCHANGE_PORT: "0",
    EXCHANGE_DATA_DIR: join(dir, "exchange"),
    EXCHANGE_SERVER_KEY: "22".repeat(32),
    EXCHANGE_ADMIN_TOKEN: "admin-token-for-the-bench-only",
    EXCHANGE_SERVICE_SECRET: "service-secret-for-the-bench-only",
    RATE_LIMIT_PER_MINUTE: "100000000",
    SIGNED_RATE_LIMIT_PER_MINUTE: "100000000",
    // The OHLC part bulk-inserts 1,000,000 deals in one statement: more than a commit's 10 s.
    EXCHANGE_DB_QUERY_TIMEOUT_MS: "600000",
    ...(cfg.DATABASE_URL ? { DATABASE_URL: cfg.DATABASE_URL, EXCHANGE_DB_SCHEMA: schema } : {}),
  };
  const cleanup = async () => {
    if (cfg.DATABASE_URL) {
      const client = new pg.Client({ connectionString: cfg.DATABASE_URL });
      await client.connect();
      await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const running = await startExchange(parseEnv(exchangeEnv, vars), {
      log: () => {},
      beforeLoad: seedFixtureBeforeLoad,
    });
    let closed = false;
    return {
      running,
      backend: cfg.DATABASE_URL ? "postgres" : "pglite",
      close: async () => {
        if (closed) return;
        closed = true;
        await running.close().finally(cleanup);
      },
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
