// Ponder's API entry point: GraphQL and SQL for explorers, and the ecosystem API from api/.
import { db } from "ponder:api";
import schema from "ponder:schema";
import { client, graphql } from "ponder";
import { createEcosystemApi } from "../../api/index.ts";
import {
  boundStatementTime,
  GRAPHQL_LIMITS,
  pgCostEstimator,
  pgliteCostEstimator,
  type PgliteLike,
  type PgPoolLike,
  type PoolLike,
} from "../../api/explorer/index.ts";
import { ecosystemApiEnv, parseEnv } from "../../config/env.ts";

const env = parseEnv(ecosystemApiEnv);

// Ponder's database driver (set before this module loads). On both, /sql queries are planned
// first and refused above a bound (PGlite cannot interrupt a running query: one thread shared
// with indexing). On PostgreSQL the read-only pool, which serves /sql, /graphql and /api, also
// gets a statement timeout for whatever the estimate misses.
type Driver = { dialect: "pglite"; instance: PgliteLike } | { dialect: "postgres"; readonly: PoolLike & PgPoolLike };
const driver = (globalThis as unknown as { PONDER_DATABASE: { driver: Driver } }).PONDER_DATABASE.driver;
if (driver.dialect === "postgres") boundStatementTime(driver.readonly, env.SQL_STATEMENT_TIMEOUT_MS);

export default createEcosystemApi({
  db,
  rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
  trustProxy: env.TRUST_PROXY,
  wrappedNativePrice: env.WRAPPED_NATIVE_PRICE,
  explorer: {
    sql: client({ db, schema }),
    graphql: graphql({ db, schema }, GRAPHQL_LIMITS),
    estimate:
      driver.dialect === "pglite"
        ? pgliteCostEstimator(driver.instance)
        : pgCostEstimator(driver.readonly, env.SQL_STATEMENT_TIMEOUT_MS),
    maxCost: env.SQL_MAX_COST,
    maxRows: env.SQL_MAX_ROWS,
    statementTimeoutMs: driver.dialect === "postgres" ? env.SQL_STATEMENT_TIMEOUT_MS : undefined,
  },
});
