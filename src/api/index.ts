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
import { startWrites, startWritesThread, type WritesConfig } from "../../api/writes/index.ts";
import { ecosystemApiEnv, parseEnv, writesEnv } from "../../config/env.ts";
import { DEFAULT_SPEC_PATH } from "../../mcp/index.ts";

const env = parseEnv(ecosystemApiEnv);
const writesConfig = parseEnv(writesEnv);

// Ponder's database driver (set before this module loads). On both, /sql queries are planned
// first and refused above a bound (PGlite cannot interrupt a running query: one thread shared
// with indexing). On PostgreSQL the read-only pool, which serves /sql, /graphql and /api, also
// gets a statement timeout for whatever the estimate misses.
type Driver = { dialect: "pglite"; instance: PgliteLike } | { dialect: "postgres"; readonly: PoolLike & PgPoolLike };
const driver = (globalThis as unknown as { PONDER_DATABASE: { driver: Driver } }).PONDER_DATABASE.driver;
if (driver.dialect === "postgres") boundStatementTime(driver.readonly, env.SQL_STATEMENT_TIMEOUT_MS);

// The relayed writes start in the background: reads serve at once, writes answer 503 until ready.
// On the embedded database they run on a thread of their own (WRITES_THREAD): PGlite runs the
// indexer's statements synchronously on this one.
const writesSettings: WritesConfig = {
  rpcUrl: writesConfig.RPC_URL,
  chainId: writesConfig.CHAIN_ID,
  rpcTimeoutMs: writesConfig.RPC_TIMEOUT_MS,
  relayerPrivateKey: writesConfig.RELAYER_PRIVATE_KEY as `0x${string}` | undefined,
  exchangeUrl: writesConfig.EXCHANGE_URL,
  exchangeServiceSecret: writesConfig.EXCHANGE_SERVICE_SECRET,
  exchangeTimeoutMs: writesConfig.EXCHANGE_TIMEOUT_MS,
  databaseUrl: writesConfig.DATABASE_URL,
  dataDir: writesConfig.RELAYER_DATA_DIR,
  schema: writesConfig.RELAYER_DB_SCHEMA,
  dbTimeoutMs: 5_000,
  receiptTimeoutMs: writesConfig.RELAYER_RECEIPT_TIMEOUT_MS,
  replaceAfterMs: writesConfig.RELAYER_REPLACE_AFTER_MS,
  pollMs: writesConfig.RELAYER_POLL_MS,
  minBalanceWei: writesConfig.RELAYER_MIN_BALANCE_WEI,
  feeCurrency: writesConfig.SPAWN_FEE_CURRENCY,
  votesPerMinute: writesConfig.VOTE_RATE_LIMIT_PER_MINUTE,
};
const writesOnThread =
  writesConfig.WRITES_THREAD === "on" || (writesConfig.WRITES_THREAD === "auto" && driver.dialect === "pglite");
const writes = writesOnThread ? startWritesThread(writesSettings) : startWrites(writesSettings);

export default createEcosystemApi({
  db,
  rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
  trustProxy: env.TRUST_PROXY,
  webOrigins: env.WEB_ORIGIN,
  wrappedNativePrice: env.WRAPPED_NATIVE_PRICE,
  writes,
  authFailureLimitPerMinute: writesConfig.AUTH_FAILURE_LIMIT_PER_MINUTE,
  publicUrl: writesConfig.API_PUBLIC_URL,
  mcp: {
    exchangeUrl: writesConfig.EXCHANGE_URL,
    specPath: env.MCP_SPEC_PATH ?? DEFAULT_SPEC_PATH,
    timeoutMs: env.MCP_TIMEOUT_MS,
    callsPerMinute: env.MCP_CALLS_PER_MINUTE,
    maxSessions: env.MCP_MAX_SESSIONS,
    sessionsPerMinute: env.MCP_SESSIONS_PER_MINUTE,
    idleMs: env.MCP_SESSION_IDLE_MS,
    httpAuth: env.MCP_HTTP_AUTH,
  },
  streams: {
    pollMs: env.SSE_POLL_MS,
    reorgWindowBlocks: env.SSE_REORG_WINDOW_BLOCKS,
    maxConnectionsPerIp: env.SSE_MAX_CONNECTIONS_PER_IP,
    maxConnections: env.SSE_MAX_CONNECTIONS,
  },
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
