import { z } from "zod";

/**
 * The one configuration surface: every environment variable the platform reads, with its default.
 * Each process parses only the groups it needs, and a bad value stops start-up with a message
 * naming the variable. `.env.example` lists the same variables; keep the two in step.
 */

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address");
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
  /** Account allowed to relay signed spawns and votes (spawnFor, castVoteFor); default: the deployer. */
  RELAYER_ADDRESS: address.optional(),
  /** Operator of new workers (the agent runtime); default: the deployer. */
  WORKER_OPERATOR_ADDRESS: address.optional(),
  /** Receiver of boost payments; default: the deployer. */
  TREASURY_ADDRESS: address.optional(),
  /** Existing stable token and wrapped native token; mocks are deployed when unset. */
  STABLE_TOKEN_ADDRESS: address.optional(),
  WRAPPED_NATIVE_ADDRESS: address.optional(),
  /** Spawn fee in wei of the native token (burned in full). */
  SPAWN_FEE_WEI: wei.optional(),
  /** Seconds an owner waits between two spawns. */
  SPAWN_COOLDOWN_SECONDS: z.coerce.number().int().min(0).optional(),
});
export type ChainEnv = z.infer<typeof chainEnv>;

export const indexerEnv = z.object({
  /** JSON-RPC endpoint the indexer reads. */
  RPC_URL: url.default("http://127.0.0.1:8545"),
  /** Chain whose deployments/<CHAIN_ID>.json the indexer follows. */
  CHAIN_ID: z.coerce.number().int().positive().default(31337),
  /** PostgreSQL connection string; unset means embedded PGlite under .data/ponder. */
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// connection string").optional(),
  /** How often (ms) the indexer polls the chain for new blocks. */
  POLLING_INTERVAL_MS: z.coerce.number().int().min(50).default(1000),
});

export const apiEnv = z.object({
  /** Requests per minute per client IP on the public reads (ecosystem and exchange). */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  /** Behind one trusted reverse proxy: take the client IP from the last X-Forwarded-For entry. */
  TRUST_PROXY: z
    .enum(["true", "false"], { error: "must be true or false" })
    .default("false")
    .transform((value) => value === "true"),
});

export const startEnv = z.object({
  /** Port of the local Hardhat node started by `npm start`. */
  CHAIN_PORT: port.default(8545),
  /** Port of the ecosystem API (Ponder's server). */
  PORT: port.default(42069),
  /** Database schema Ponder writes the indexed tables to. */
  DATABASE_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]{0,44}$/, "must be a lower-case SQL identifier").default("ecosystem"),
  DATABASE_URL: z.string().optional(),
});

/** Parses `source` with `schema`, or throws one error listing every bad variable. */
export function parseEnv<S extends z.ZodType>(schema: S, source: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
  throw new Error(`Invalid environment:\n${lines.join("\n")}`);
}
