/**
 * `npm start`: the platform on this machine. Starts a local Hardhat node, deploys every
 * contract, seeds demo activity, then runs the indexer and ecosystem API (Ponder), prints
 * what it did and keeps running until Ctrl-C, which stops everything it started.
 * Logs of long-running services go to .data/logs/.
 */
import { rm } from "node:fs/promises";
import { parseEnv, startEnv } from "../config/env.ts";
import { forgetChainSyncData } from "./lib/ponder-sync.ts";
import { rpcAnswers, Supervisor, waitUntil } from "./lib/supervisor.ts";

const env = parseEnv(startEnv);
const rpcUrl = `http://127.0.0.1:${env.CHAIN_PORT}`;
const apiUrl = `http://127.0.0.1:${env.PORT}`;
const hardhat = "./node_modules/.bin/hardhat";
const LOCAL_CHAIN_ID = 31337;

if (await rpcAnswers(rpcUrl).catch(() => false)) {
  console.error(`Something already answers JSON-RPC at ${rpcUrl}; stop it or set CHAIN_PORT.`);
  process.exit(1);
}

const supervisor = new Supervisor();
try {
  await supervisor.task("build", hardhat, ["build", "--quiet"]);
  supervisor.service("chain", hardhat, ["node", "--hostname", "127.0.0.1", "--port", String(env.CHAIN_PORT)]);
  await waitUntil(`the local chain at ${rpcUrl}`, () => rpcAnswers(rpcUrl));
  // A local node's accounts are unlocked: never sign with a key from the caller's environment here.
  const chainEnvVars = { RPC_URL: rpcUrl, DEPLOYER_PRIVATE_KEY: "" };
  await supervisor.task("deploy", hardhat, ["run", "scripts/deploy.ts", "--network", "rpc", "--no-compile"], chainEnvVars);
  await supervisor.task("seed", hardhat, ["run", "scripts/seed.ts", "--network", "rpc", "--no-compile"], chainEnvVars);

  // The chain is new on every start, so the previous run's indexed data describes a chain that
  // no longer exists: start the embedded database afresh, or clear this chain from Postgres.
  if (!env.DATABASE_URL) await rm(".data/ponder", { recursive: true, force: true });
  else {
    await supervisor.task("prune", "./node_modules/.bin/ponder", ["db", "prune"]);
    await forgetChainSyncData(env.DATABASE_URL, LOCAL_CHAIN_ID);
  }
  supervisor.service(
    "indexer",
    "./node_modules/.bin/ponder",
    ["start", "--schema", env.DATABASE_SCHEMA, "--port", String(env.PORT)],
    { RPC_URL: rpcUrl, CHAIN_ID: String(LOCAL_CHAIN_ID) },
  );
  await waitUntil(`the ecosystem API at ${apiUrl}`, async () => (await fetch(`${apiUrl}/health`)).ok, 120_000);
} catch (error) {
  console.error((error as Error).message);
  await supervisor.stop(1);
}

console.log(`
Platform running:
  chain (Hardhat node, chain id 31337)  ${rpcUrl}
  ecosystem API (Ponder + Hono)         ${apiUrl}/api/agents/overview
                                        ${apiUrl}/api/launchpad/tokens
  explorers: GraphQL ${apiUrl}/graphql   SQL ${apiUrl}/sql   OpenAPI ${apiUrl}/openapi.json
  database: ${env.DATABASE_URL ? `PostgreSQL, schema ${env.DATABASE_SCHEMA}` : "embedded PGlite in .data/ponder"}
  contracts: deployments/31337.json      logs: .data/logs/{chain,indexer}.log
Press Ctrl-C to stop.`);
