import { readFileSync } from "node:fs";
import { createConfig, factory } from "ponder";
import { getAbiItem } from "viem";
import { indexerEnv, parseEnv } from "../config/env.ts";
import { deploymentPath, deploymentSchema } from "../lib/deployments.ts";
import {
  ActionLogAbi,
  AgentPoolAbi,
  AgentRegistryAbi,
  AgentSpawnerAbi,
  AgentTokenAbi,
  BoosterAbi,
  WorkerVotingAbi,
} from "./abis.ts";
import { retireIncompatibleDataDir } from "../lib/db/data-dir.ts";

/**
 * Ponder's configuration, from the environment and deployments/<CHAIN_ID>.json, so the same code
 * indexes the local chain or a real one. Tokens and pools are discovered from AgentSpawned
 * (Ponder's factory pattern), so no child address is ever configured by hand.
 */
const env = parseEnv(indexerEnv);
const deployment = deploymentSchema.parse(JSON.parse(readFileSync(deploymentPath(env.CHAIN_ID), "utf8")));
const { contracts } = deployment;
const startBlock = deployment.startBlock;
const chain = "chain" as const;
const LOCAL_CHAIN_ID = 31337;
const spawned = getAbiItem({ abi: AgentSpawnerAbi, name: "AgentSpawned" });

if (!env.DATABASE_URL) {
  const retired = retireIncompatibleDataDir(env.PONDER_DATA_DIR);
  if (retired)
    console.warn(
      `${env.PONDER_DATA_DIR} was written by an older PGlite (PostgreSQL 16); it is kept as ${retired} and the indexer rebuilds from block ${startBlock}`,
    );
}

export default createConfig({
  database: env.DATABASE_URL
    ? { kind: "postgres", connectionString: env.DATABASE_URL }
    : { kind: "pglite", directory: env.PONDER_DATA_DIR },
  chains: {
    [chain]: {
      id: deployment.chainId,
      rpc: env.RPC_URL,
      pollingInterval: env.POLLING_INTERVAL_MS,
      // A local node is a new chain on every start under the same id: cached RPC data from an
      // earlier one would be replayed as if it were this chain's.
      disableCache: deployment.chainId === LOCAL_CHAIN_ID,
    },
  },
  contracts: {
    AgentSpawner: { chain, abi: AgentSpawnerAbi, address: contracts.AgentSpawner, startBlock },
    AgentRegistry: { chain, abi: AgentRegistryAbi, address: contracts.AgentRegistry, startBlock },
    ActionLog: { chain, abi: ActionLogAbi, address: contracts.ActionLog, startBlock },
    WorkerVoting: { chain, abi: WorkerVotingAbi, address: contracts.WorkerVoting, startBlock },
    Booster: { chain, abi: BoosterAbi, address: contracts.Booster, startBlock },
    AgentToken: {
      chain,
      abi: AgentTokenAbi,
      address: factory({ address: contracts.AgentSpawner, event: spawned, parameter: "token" }),
      startBlock,
    },
    AgentPool: {
      chain,
      abi: AgentPoolAbi,
      address: factory({ address: contracts.AgentSpawner, event: spawned, parameter: "pool" }),
      startBlock,
    },
  },
});
