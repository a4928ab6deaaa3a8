/**
 * `npm run agents`: runs every agent whose key it holds against RPC_URL until SIGINT or SIGTERM.
 * Prints one status line a minute (ticks, intents by state).
 */
import { agentsEnv, parseEnv } from "../../config/env.ts";
import { startAgents } from "./runtime.ts";

const env = parseEnv(agentsEnv);
const LOCAL_CHAIN_ID = 31337;

const handle = await startAgents({
  rpcUrl: env.RPC_URL,
  chainId: env.CHAIN_ID,
  rpcTimeoutMs: env.RPC_TIMEOUT_MS,
  tickMs: env.AGENTS_TICK_MS,
  workerKey: env.WORKER_OPERATOR_PRIVATE_KEY as `0x${string}` | undefined,
  queenKey: env.QUEEN_PRIVATE_KEY as `0x${string}` | undefined,
  scoutKeys: env.SCOUT_PRIVATE_KEYS as `0x${string}`[],
  privateRelayUrl: env.PRIVATE_RELAY_URL ?? env.RPC_URL,
  batchWindowTicks: env.AGENTS_BATCH_WINDOW_TICKS,
  databaseUrl: env.DATABASE_URL,
  dataDir: env.AGENTS_DATA_DIR,
  schema: env.AGENTS_DB_SCHEMA,
  dbTimeoutMs: 10_000,
  receiptTimeoutMs: env.AGENTS_RECEIPT_TIMEOUT_MS,
  pollMs: 100,
  fundLocally: env.CHAIN_ID === LOCAL_CHAIN_ID,
  crashBeforeBroadcast: env.AGENTS_CRASH_BEFORE_BROADCAST,
  log: (message, error) => console.error(new Date().toISOString(), message, error ?? ""),
  info: (message) => console.log(new Date().toISOString(), message),
}).catch((error: unknown) => {
  console.error(`agents: cannot start: ${(error as Error).message}`);
  process.exit(1);
});

console.log(`agents: running ${handle.roles.map((r) => `${r.name} (${r.address})`).join(", ")}`);
const status = setInterval(async () => {
  console.log(
    `agents: ${handle.ticks()} ticks; intents ${JSON.stringify(await handle.intentCounts().catch(() => ({})))}`,
  );
}, 60_000);
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, async () => {
    clearInterval(status);
    await handle.close();
    process.exit(0);
  });
