import { z } from "zod";
import { addressText } from "../lib/address.ts";

/**
 * The one configuration surface: every environment variable the platform reads, with its default.
 * Each process parses only the groups it needs, and a bad value stops start-up with a message
 * naming the variable. The doc comment above each property is its documentation: `npm run gen:env`
 * writes `.env.example` and the README's configuration table from this file (lint fails on drift).
 * A variable several processes read is defined once and reused (`chainEnv.shape.RPC_URL`); a
 * schema's own doc comment above it says what it means to that process.
 */

const address = addressText;
const privateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key");
const url = z.url();
const port = z.coerce.number().int().min(1).max(65535);
const wei = z
  .string()
  .regex(/^\d+$/, "must be a whole number of wei")
  .transform((v) => BigInt(v));

export const chainEnv = z.object({
  /** JSON-RPC endpoint of the chain the contracts live on. */
  RPC_URL: url.default("http://127.0.0.1:8545"),
  /** Key that deploys and administers the contracts; unset on a local node, whose accounts are unlocked. */
  DEPLOYER_PRIVATE_KEY: privateKey.optional(),
  /** Account granted the relayer role (spawnFor, castVoteFor, proposeFor on a user's behalf), which the ecosystem API's writes send from. Default: the deployer (local node: account #1). */
  RELAYER_ADDRESS: address.optional(),
  /** Operator address recorded for new workers (may record their actions; the agent runtime trades from it). Default: the deployer (local node: account #2). */
  WORKER_OPERATOR_ADDRESS: address.optional(),
  /** Receiver of boost payments. Default: the deployer (local node: account #3). */
  TREASURY_ADDRESS: address.optional(),
  /** Where DepositForwarderFactory sweeps every deposit address (the exchange's hot wallet; the admin may change it on-chain later). Default: the deployer (local node: account #15, used by nothing else). */
  HOT_WALLET_ADDRESS: address.optional(),
  /** Account granted DepositForwarderFactory's sweeper role (deploys and sweeps deposit forwarders). Default: HOT_WALLET_ADDRESS, else the deployer (local node: account #15). */
  SWEEPER_ADDRESS: address.optional(),
  /** Existing 6-decimal stable token; a mock is deployed when unset. */
  STABLE_TOKEN_ADDRESS: address.optional(),
  /** Existing WETH9-style wrapped native token; a mock is deployed when unset. */
  WRAPPED_NATIVE_ADDRESS: address.optional(),
  /** Spawn fee in wei of the native token, burned in full. Unset: 10000000000000000 (0.01). */
  SPAWN_FEE_WEI: wei.optional(),
  /** Seconds an owner waits between two spawns. Unset: 3600. */
  SPAWN_COOLDOWN_SECONDS: z.coerce.number().int().min(0).optional(),
});
export type ChainEnv = z.infer<typeof chainEnv>;

export const indexerEnv = z.object({
  /** JSON-RPC endpoint the indexer reads. */
  RPC_URL: chainEnv.shape.RPC_URL,
  /** Chain whose deployments/<CHAIN_ID>.json the indexer follows. */
  CHAIN_ID: z.coerce.number().int().positive().default(31337),
  /** PostgreSQL connection string; unset means embedded PGlite in PONDER_DATA_DIR. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// connection string")
    .optional(),
  /**
   * Directory of the indexer's embedded PGlite database (without DATABASE_URL); `npm start` empties
   * it. PGlite 0.5 (PostgreSQL 18); a directory of PGlite 0.2 is moved aside to `<dir>.pg16` and
   * the indexer rebuilds it from the chain.
   */
  PONDER_DATA_DIR: z.string().min(1).default(".data/ponder"),
  /** How often (ms) the indexer polls the chain for new blocks. */
  POLLING_INTERVAL_MS: z.coerce.number().int().min(50).default(1000),
});

/** An origin as a browser sends it: scheme, host and optional port, nothing after. */
const origin = z
  .string()
  .regex(/^https?:\/\/[^/\s*?#]+$/, "must be origins like http://127.0.0.1:3000 (no path, no *)");

export const apiEnv = z.object({
  /** Requests per minute per client IP on the public reads (ecosystem and exchange). */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  /**
   * Comma-separated origins whose pages may call the public APIs from a browser (CORS): the web
   * app's. Any other origin gets no CORS header.
   */
  WEB_ORIGIN: z
    .string()
    .default("http://127.0.0.1:3000,http://localhost:3000")
    .transform((value) =>
      value
        .split(",")
        .map((entry) => entry.trim())
        .filter(Boolean),
    )
    .pipe(z.array(origin)),
  /** Behind one trusted reverse proxy: take the client IP from the last X-Forwarded-For entry. */
  TRUST_PROXY: z
    .enum(["true", "false"], { error: "must be true or false" })
    .default("false")
    .transform((value) => value === "true"),
});

/** The ecosystem API's own settings (Ponder's process), beyond the public-read ones. */
export const ecosystemApiEnv = apiEnv.extend({
  /** PostgreSQL: ms after which a query of /sql, /graphql or /api is cancelled (statement_timeout). */
  SQL_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(3_000),
  /** PGlite and PostgreSQL: /sql queries whose EXPLAIN cost estimate is above this are refused before they run. */
  SQL_MAX_COST: z.coerce.number().positive().default(100_000),
  /** PGlite and PostgreSQL: /sql queries planned to produce more rows at any step (join output, result) are refused before they run. */
  SQL_MAX_ROWS: z.coerce.number().int().positive().default(50_000),
  /**
   * Reference price of one whole wrapped native token in whole stable tokens (at most 6
   * fractional digits): values wrapped-native pools in the stable token (tvlStable, volume24hStable).
   */
  WRAPPED_NATIVE_PRICE: z
    .string()
    .regex(/^\d{1,12}(\.\d{1,6})?$/, "must be a decimal number of stable tokens with at most 6 fractional digits")
    .default("2000")
    // Stable base units (6 decimals) per whole wrapped native token, exact.
    .transform((value) => {
      const [whole, fraction = ""] = value.split(".");
      return BigInt(whole + fraction.padEnd(6, "0"));
    }),
  /** Server-sent event streams: ms between two reads of new rows by each stream's shared poller. */
  SSE_POLL_MS: z.coerce.number().int().min(50).max(10_000).default(250),
  /** Server-sent event streams: blocks that may still be reorged; events sent that recently are re-checked and retracted if withdrawn. */
  SSE_REORG_WINDOW_BLOCKS: z.coerce.number().int().min(1).max(10_000).default(240),
  /** Open event streams per client IP (both streams together); past it 429. */
  SSE_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(1).default(10),
  /** Open event streams in all; past it 503. */
  SSE_MAX_CONNECTIONS: z.coerce.number().int().min(1).default(1_000),
  /** MCP server (/mcp and npm run mcp): requests (tool calls, resource reads, subscriptions) per minute per session. */
  MCP_CALLS_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  /** MCP server: most ms a tool's call to the ecosystem API or the exchange may take before TIMEOUT. */
  MCP_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** /mcp: open MCP sessions in all; an initialize past it is refused with 503. */
  MCP_MAX_SESSIONS: z.coerce.number().int().min(1).default(100),
  /** /mcp: new MCP sessions per minute per client IP. */
  MCP_SESSIONS_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  /** /mcp: ms without a request after which an MCP session is closed. */
  MCP_SESSION_IDLE_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(600_000),
  /** /mcp: write tools over HTTP. none: stdio only; api-key: the caller's exchange key pair in the API-PublicKey and API-PrivateKey headers, over HTTPS or from loopback (mcp/README.md). */
  MCP_HTTP_AUTH: z.enum(["none", "api-key"]).default("none"),
  /** MCP server: SPEC.md, served as the ecosystem://spec resource; default docs/SPEC.md (the repository's copy). */
  MCP_SPEC_PATH: z.string().min(1).optional(),
});

/** Clients of a running exchange: the market-making bot and `npm run admin`. */
export const exchangeClientEnv = z.object({
  /** Base URL of the exchange. */
  EXCHANGE_URL: url.default("http://127.0.0.1:8080"),
});

/**
 * The ecosystem API's signed writes (spawn, vote): the relayer, its journal, and the exchange that
 * verifies signatures and holds fees. Without EXCHANGE_SERVICE_SECRET (or, off a local chain,
 * RELAYER_PRIVATE_KEY) the writes answer 503 and say which is missing.
 */
export const writesEnv = z.object({
  RPC_URL: chainEnv.shape.RPC_URL,
  CHAIN_ID: indexerEnv.shape.CHAIN_ID,
  /** Most ms one JSON-RPC call may take. */
  RPC_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** Key of the account holding the relayer role; on a local node (chain 31337) its well-known key is used when unset. */
  RELAYER_PRIVATE_KEY: privateKey.optional(),
  /** Base URL of the exchange (signature verification and fee holds). */
  EXCHANGE_URL: exchangeClientEnv.shape.EXCHANGE_URL,
  /** The exchange's service secret (X-Service-Secret of /internal/*). */
  EXCHANGE_SERVICE_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  /** Most ms one call to the exchange may take. */
  EXCHANGE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  /**
   * The relayer's journal (writes, signed transactions, answers kept for Idempotency-Key): embedded
   * PGlite here without DATABASE_URL. Bound to the chain's genesis hash: on a new chain its open fee
   * holds are released and it starts empty. A PGlite 0.2 directory is copied into a new one at the
   * first start and kept beside it as `<dir>.pg16`.
   */
  RELAYER_DATA_DIR: z.string().min(1).default(".data/relayer"),
  /** The relayer journal's schema on the DATABASE_URL server. */
  RELAYER_DB_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, "must be a lower-case SQL identifier")
    .default("relayer"),
  /** Most ms a write waits for its receipt before answering 504 TX_PENDING (the transaction stays queued). */
  RELAYER_RECEIPT_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
  /** A transaction not mined after this many ms is replaced with the same nonce and higher fees. */
  RELAYER_REPLACE_AFTER_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(30_000),
  /** How often (ms) receipts are polled. */
  RELAYER_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(100),
  /** Native balance (wei) the relayer keeps beyond a transaction's cost; below it writes answer 503. */
  RELAYER_MIN_BALANCE_WEI: wei.default(10n ** 16n),
  /** Exchange currency of the chain's native token: spawn fees are held from it. */
  SPAWN_FEE_CURRENCY: z
    .string()
    .regex(/^[A-Z0-9]{2,10}$/, "must be an exchange currency code")
    .default("ETH"),
  /** Votes per user per minute, on top of RATE_LIMIT_PER_MINUTE per IP. */
  VOTE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  /**
   * Where the relayed writes run: on a Node thread of their own ("on"), on the API's thread
   * ("off"), or "auto": on a thread with the embedded database, where Ponder's indexing holds the
   * API's thread, and on the API's thread with PostgreSQL, where a second thread costs more CPU
   * per write than it saves (bench:writes measures both: scripts/bench/README.md).
   */
  WRITES_THREAD: z.enum(["auto", "on", "off"]).default("auto"),
  /** Failed authentications per minute per client IP before 429 (as on the exchange). */
  AUTH_FAILURE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  /** Scheme, host and port clients reach this API at behind a proxy; signatures are checked against it. */
  API_PUBLIC_URL: url.optional(),
  DATABASE_URL: indexerEnv.shape.DATABASE_URL,
});

/** The agent runtime (`npm run agents`, agents/runtime). */
export const agentsEnv = z.object({
  RPC_URL: chainEnv.shape.RPC_URL,
  CHAIN_ID: indexerEnv.shape.CHAIN_ID,
  /** Most ms one JSON-RPC call may take. */
  RPC_TIMEOUT_MS: writesEnv.shape.RPC_TIMEOUT_MS,
  /** Key of the operator of the workers it runs; on a local node, the deployment's worker operator. */
  WORKER_OPERATOR_PRIVATE_KEY: privateKey.optional(),
  /** Key of a queen's operator; on a local node (with no queen or scout key set), every registered one. */
  QUEEN_PRIVATE_KEY: privateKey.optional(),
  /** Comma-separated keys of scouts' operators. */
  SCOUT_PRIVATE_KEYS: z
    .string()
    .optional()
    .transform((v) =>
      v
        ? v
            .split(",")
            .map((k) => k.trim())
            .filter(Boolean)
        : [],
    )
    .pipe(z.array(privateKey)),
  /** Milliseconds between two ticks of every agent. */
  AGENTS_TICK_MS: z.coerce.number().int().min(100).max(3_600_000).default(3_000),
  /** BatchAuction workers net their trades over this many ticks. */
  AGENTS_BATCH_WINDOW_TICKS: z.coerce.number().int().min(1).max(1_000).default(3),
  /** JSON-RPC endpoint that takes PrivateRelay workers' transactions without showing them (e.g. Flashbots Protect); default RPC_URL. */
  PRIVATE_RELAY_URL: url.optional(),
  /** Each agent account's intents and transaction journal: embedded PGlite under `<dir>/<agent>` without DATABASE_URL. */
  AGENTS_DATA_DIR: z.string().min(1).default(".data/agents"),
  /** With DATABASE_URL: each agent account's journal is schema `<schema>_<agent>` there. */
  AGENTS_DB_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,40}$/, "must be a lower-case SQL identifier")
    .default("agents"),
  DATABASE_URL: indexerEnv.shape.DATABASE_URL,
  /** Crash tests only: die (SIGKILL) just before the Nth broadcast, its transaction journalled. */
  AGENTS_CRASH_BEFORE_BROADCAST: z.coerce.number().int().min(1).optional(),
  /** Most ms an agent waits for a receipt before its tick moves on (the intent stays open). */
  AGENTS_RECEIPT_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(30_000),
});

export const startEnv = z.object({
  /** Port of the local Hardhat node started by `npm start`. */
  CHAIN_PORT: port.default(8545),
  /** Port of the ecosystem API (Ponder's server). */
  PORT: port.default(42069),
  /** Database schema Ponder writes the indexed tables to. */
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,44}$/, "must be a lower-case SQL identifier")
    .default("ecosystem"),
  DATABASE_URL: z.string().optional(),
  PONDER_DATA_DIR: indexerEnv.shape.PONDER_DATA_DIR,
});

/**
 * The web app's server (`web/server`, started by `npm start`): serves web/dist and /config.json,
 * which tells the browser where the APIs and the chain are. The defaults are what `npm start`
 * runs locally; behind a proxy the *_PUBLIC_URL variables name what a browser reaches.
 */
export const webEnv = z.object({
  /** Port of the web app; its origin must be in the APIs' WEB_ORIGIN (default http://127.0.0.1:3000). */
  WEB_PORT: z.coerce.number().int().min(0, "must be 0 (any free port) or a port number").max(65535).default(3000),
  /** Interface the web app's server listens on. */
  WEB_HOST: z.string().min(1).default("127.0.0.1"),
  /** The built app (npm run build:web). */
  WEB_DIST_DIR: z.string().min(1).default("web/dist"),
  /** Requests per minute per client IP (a first visit loads the page, its scripts and /config.json). */
  WEB_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  /** Most ms a request may take to arrive and be answered. */
  WEB_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  TRUST_PROXY: apiEnv.shape.TRUST_PROXY,
  /** The chain whose deployments/<CHAIN_ID>.json the app is told about. */
  CHAIN_ID: indexerEnv.shape.CHAIN_ID,
  RPC_URL: chainEnv.shape.RPC_URL,
  /** JSON-RPC endpoint the browser reads the chain from; default RPC_URL. */
  WEB_RPC_URL: url.optional(),
  /** Port of the ecosystem API, reached at http://127.0.0.1:PORT unless API_PUBLIC_URL says otherwise. */
  PORT: startEnv.shape.PORT,
  /** The ecosystem API's origin as a browser reaches it; default http://127.0.0.1:PORT. */
  API_PUBLIC_URL: url.optional(),
  /** The exchange, its REST API and its /ws (ws:// or wss:// of the same origin). */
  EXCHANGE_URL: exchangeClientEnv.shape.EXCHANGE_URL,
  EXCHANGE_PUBLIC_URL: url.optional(),
});
export type WebEnv = z.infer<typeof webEnv>;

/** Parses `source` with `schema`, or throws one error listing every bad variable. */
export function parseEnv<S extends z.ZodType>(schema: S, source: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
  throw new Error(`Invalid environment:\n${lines.join("\n")}`);
}

const booleanText = z
  .enum(["true", "false"], { error: "must be true or false" })
  .transform((value) => value === "true");

/** The WebSocket streams (`/ws`) of the exchange and of `npm run gateway`. */
const natsUrl = z.string().regex(/^(nats|tls):\/\/\S+$/, "must be a nats:// or tls:// URL");

export const streamEnv = z.object({
  /** Open WebSocket connections per client IP. */
  WS_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(1).default(50),
  /** Open WebSocket connections in all, per process. */
  WS_MAX_CONNECTIONS: z.coerce.number().int().min(1).default(20_000),
  /** Streams one connection may subscribe to. */
  WS_MAX_SUBSCRIPTIONS: z.coerce.number().int().min(1).default(200),
  /** Requests (SUBSCRIBE, LOGIN, ...) per second per connection. */
  WS_MAX_MESSAGES_PER_SECOND: z.coerce.number().int().min(1).default(10),
  /** Bytes queued for one client beyond which it is closed as a slow consumer (4008). */
  WS_MAX_BUFFERED_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  /** Ping interval; a peer that has not answered the previous ping is dropped. */
  WS_PING_INTERVAL_MS: z.coerce.number().int().min(100).default(30_000),
  /** A connection that subscribes to nothing (and has not logged in) is closed after this long. */
  WS_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  /** Most ms a stream event waits to share one write per client with the events after it. */
  WS_FLUSH_MS: z.coerce.number().int().min(0).max(1_000).default(5),
  /** NATS server: the exchange publishes every stream there, for `npm run gateway` processes. Unset: one process, no NATS. */
  NATS_URL: natsUrl.optional(),
  /** First token of the NATS subjects; exchanges sharing one NATS server need different prefixes (their user ids overlap). */
  NATS_SUBJECT_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1-64 letters, digits, '_' or '-' (one NATS subject token)")
    .default("exchange"),
});

export type StreamEnv = z.infer<typeof streamEnv>;

/** `npm run gateway`: a WebSocket gateway serving the exchange's streams from NATS. */
export const gatewayEnv = streamEnv.extend({
  NATS_URL: natsUrl,
  /** Port the gateway's /ws listens on. */
  GATEWAY_PORT: z.coerce.number().int().min(0).max(65535).default(8090),
  /** Interface the gateway listens on. */
  GATEWAY_HOST: z.string().min(1).default("127.0.0.1"),
  /** Origin (ws:// or wss://) clients reach this gateway at behind a proxy: what a LOGIN signs. */
  GATEWAY_PUBLIC_URL: z.string().url().optional(),
  /** The exchange: its pairs, and its /internal/verify-signature for logins. */
  EXCHANGE_URL: exchangeClientEnv.shape.EXCHANGE_URL,
  /** The exchange's service secret; without it the gateway serves market streams only (LOGIN answers UNAVAILABLE). */
  EXCHANGE_SERVICE_SECRET: z.string().min(16).optional(),
  TRUST_PROXY: booleanText.default(false),
  /** Failed LOGINs per minute per client IP before further LOGINs are answered RATE_LIMITED. */
  AUTH_FAILURE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(30),
});
export type GatewayEnv = z.infer<typeof gatewayEnv>;

export const exchangeEnv = apiEnv.extend({
  /** The chain a web account's Sign in with Ethereum message must name. */
  CHAIN_ID: indexerEnv.shape.CHAIN_ID,
  /** Port of the exchange (both {base_url} and {aggregator_url}); 0 picks a free one. */
  EXCHANGE_PORT: z.coerce.number().int().min(0, "must be 0 (any free port) or a port number").max(65535).default(8080),
  /** Interface the exchange listens on. */
  EXCHANGE_HOST: z.string().min(1).default("127.0.0.1"),
  /** Scheme, host and port clients reach the exchange at behind a proxy; signatures are checked against it. */
  EXCHANGE_PUBLIC_URL: url.optional(),
  /** PostgreSQL connection string; unset means embedded PGlite in EXCHANGE_DATA_DIR. */
  DATABASE_URL: indexerEnv.shape.DATABASE_URL,
  /**
   * The exchange's embedded PGlite directory without DATABASE_URL (kept across restarts: delete it
   * for a fresh market). A PGlite 0.2 directory is copied into a new one at the first start and kept
   * beside it as `<dir>.pg16`.
   */
  EXCHANGE_DATA_DIR: z.string().min(1).default(".data/exchange"),
  /** Schema of the exchange's tables. */
  EXCHANGE_DB_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, "must be a lower-case SQL identifier")
    .default("exchange"),
  /** PostgreSQL: most ms to open a connection or wait for a pooled one. */
  EXCHANGE_DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  /** Most ms a statement may run (PostgreSQL: statement_timeout) and the exchange waits for its answer (PostgreSQL and the embedded database's thread). */
  EXCHANGE_DB_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** A commit batch not confirmed within this many ms fails: the exchange answers 503 and recovers by itself. */
  EXCHANGE_COMMIT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** Most commands waiting for their commit; beyond it new ones get 503 UNAVAILABLE before they change anything. */
  EXCHANGE_COMMIT_QUEUE_MAX: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  /**
   * 32-byte key (64 hex characters or base64) that encrypts API private keys at rest. It,
   * EXCHANGE_ADMIN_TOKEN and EXCHANGE_SERVICE_SECRET are required with NODE_ENV=production; locally
   * an unset one is generated once into exchange-secrets.json beside EXCHANGE_DATA_DIR (owner-only).
   */
  EXCHANGE_SERVER_KEY: z.string().optional(),
  /** Bearer token of the admin endpoints (npm run admin). */
  EXCHANGE_ADMIN_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  /** Shared secret of the internal signature-verification endpoint (the ecosystem API). */
  EXCHANGE_SERVICE_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  /** How far (ms) the API-Timestamp header may be behind server time. */
  SIGNATURE_WINDOW_MS: z.coerce.number().int().min(1000).max(3_600_000).default(30_000),
  /** How far (ms) the API-Timestamp header may be ahead of server time; a restart refuses timestamps before its start + this. */
  SIGNATURE_MAX_FUTURE_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  /** Refuse signed requests without API-Timestamp (those can be replayed; timestamped ones are single-use). */
  REQUIRE_SIGNATURE_TIMESTAMP: booleanText.default(false),
  /** Requests per minute per API key on the signed endpoints. */
  SIGNED_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(1200),
  /** Failed authentications (bad signature, admin token or service secret) per minute per client IP before 429. */
  AUTH_FAILURE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  /** What happens when an order would trade with its owner's own resting order. */
  SELF_TRADE_PREVENTION: z.enum(["cancel_taker", "cancel_resting"]).default("cancel_taker"),
  /** On an empty database, create the demo currencies, pairs, commissions and users. */
  EXCHANGE_DEMO: booleanText.default(false),
  /** Where EXCHANGE_DEMO writes the demo users' API keys; default next to EXCHANGE_DATA_DIR (.data/demo-credentials.json). */
  DEMO_CREDENTIALS: z.string().min(1).optional(),
  /**
   * The ecosystem API (e.g. http://127.0.0.1:42069): when set, the exchange lists every agent token
   * it has indexed (`<SYMBOL>` and `<SYMBOL>_USDT`), following its token list; unset, nothing is listed.
   */
  ECOSYSTEM_API_URL: url.optional(),
  /**
   * Join the exchange to the chain (deployments/<CHAIN_ID>.json): deposit addresses, the deposit
   * watcher, withdrawals sent by the hot wallet and GET /admin/reserves. `npm start` sets it; off,
   * deposits come only from /admin/deposits and withdrawals stay pending.
   */
  CHAIN_GATEWAY: booleanText.default(false),
  /** JSON-RPC endpoint the chain gateway reads and sends through. */
  RPC_URL: chainEnv.shape.RPC_URL,
  /** Most ms the chain gateway waits for one JSON-RPC answer. */
  CHAIN_RPC_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
  /** How often (ms) the deposit watcher asks for new blocks. */
  CHAIN_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(250),
  /**
   * Blocks a deposit (and a sent withdrawal) must be deep, its own block counted, before it is
   * credited (completed). Unset: 2 on the local chain 31337, 64 (two epochs, finality) on Ethereum
   * mainnet 1, 12 elsewhere.
   */
  DEPOSIT_CONFIRMATIONS: z.coerce.number().int().min(1).max(10_000).optional(),
  /** Deposit addresses with a new credit are swept into the hot wallet at most this often (ms); each sweep costs gas. */
  DEPOSIT_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).max(86_400_000).default(15_000),
  /**
   * Start with withdrawal sending paused (the operator's kill switch, as after an incident):
   * requests are taken and wait pending until POST /admin/withdrawal-sending {"paused":false}. A
   * pause set at run time lasts until a restart, which takes this value again.
   */
  WITHDRAWALS_PAUSED: booleanText.default(false),
  /** Key of the hot wallet that sends withdrawals and sweeps deposit addresses; unset on the local chain: its account #15. */
  HOT_WALLET_PRIVATE_KEY: privateKey.optional(),
  /**
   * Test only (the kill test, test/exchange/withdrawals.test.ts): the exchange SIGKILLs itself at
   * this step of the first withdrawal it sends: `journalled` (signed and journalled, not broadcast),
   * `broadcast` (before `sent` is committed), `sent` (before it is awaited and completed).
   */
  WITHDRAWAL_FAULT_AT: z.enum(["journalled", "broadcast", "sent"]).optional(),
  ...streamEnv.shape,
});
export type ExchangeEnv = z.infer<typeof exchangeEnv>;

export const botEnv = exchangeClientEnv.extend({
  /** The demo users' keys written by the exchange with EXCHANGE_DEMO=true. */
  DEMO_CREDENTIALS: z.string().min(1).default(".data/demo-credentials.json"),
  /** Milliseconds between two rounds of quotes and trades. */
  BOT_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(1500),
  /** Seed of the bot's random walk (any text); a random one is picked and printed when unset. */
  BOT_SEED: z.string().min(1).max(100).optional(),
});

export const adminEnv = exchangeClientEnv.extend({
  /** Bearer token of /admin/*; unset: adminToken of <dirname(EXCHANGE_DATA_DIR)>/exchange-secrets.json. */
  EXCHANGE_ADMIN_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  EXCHANGE_DATA_DIR: z.string().min(1).default(".data/exchange"),
});

/** The stdio MCP server (npm run mcp): a client of a running platform, like any agent. */
export const mcpEnv = exchangeClientEnv.extend({
  /** The ecosystem API the stdio MCP server reads from and subscribes to. */
  ECOSYSTEM_API_URL: url.default("http://127.0.0.1:42069"),
  MCP_CALLS_PER_MINUTE: ecosystemApiEnv.shape.MCP_CALLS_PER_MINUTE,
  MCP_TIMEOUT_MS: ecosystemApiEnv.shape.MCP_TIMEOUT_MS,
  MCP_SPEC_PATH: ecosystemApiEnv.shape.MCP_SPEC_PATH,
  /** The caller's exchange API public key: with API_PRIVATE_KEY, the MCP server lists the order and balance tools. */
  API_PUBLIC_KEY: z.string().min(1).optional(),
  /** The caller's exchange API private key (signs requests; never sent). */
  API_PRIVATE_KEY: z.string().min(1).optional(),
  /** The agent's own chain key: the MCP server lists record_action and swap, sent with it (never sent itself). */
  AGENT_PRIVATE_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, "a 0x-prefixed 32-byte hex private key")
    .optional(),
  /** The chain the agent's key acts on (with AGENT_PRIVATE_KEY). */
  RPC_URL: chainEnv.shape.RPC_URL,
  /** The directory holding deployments/<chainId>.json (the contracts the agent's key calls); default this checkout. */
  DEPLOYMENTS_ROOT: z.string().min(1).optional(),
});
