import { join } from "node:path";
import { rpcRequest } from "../../../lib/chain-rpc.ts";
import { chainEnv, parseEnv } from "../../../config/env.ts";
import { deployAndRecord } from "../../lib/deploy-and-record.ts";
import type { Deployment } from "../../../lib/deployments.ts";
import { startProcess, type Started, unlessExited } from "./processes.ts";
import { waitFor } from "../../../support/wait.ts";

export const rpc = rpcRequest;

export const blockNumber = async (url: string) => Number(BigInt(await rpc<string>(url, "eth_blockNumber")));

/** A Hardhat node of our own (the node `npm start` runs, under `chainId`) on `port`. */
export async function startChain(
  root: string,
  port: number,
  chainId: number,
  logDir: string,
): Promise<{ url: string; node: Started }> {
  const url = `http://127.0.0.1:${port}`;
  if (
    await rpc(url, "eth_chainId").then(
      () => true,
      () => false,
    )
  ) {
    throw new Error(`something already answers JSON-RPC on port ${port}; set BENCH_CHAIN_PORT`);
  }
  const node = startProcess(
    "chain",
    join(root, "node_modules/.bin/hardhat"),
    ["node", "--hostname", "127.0.0.1", "--port", String(port), "--chain-id", String(chainId)],
    {
      cwd: root,
      logPath: join(logDir, "chain.log"),
    },
  );
  await unlessExited(
    node,
    waitFor("the benchmark chain", () => rpc(url, "eth_chainId").then(() => true), { timeoutMs: 120_000 }),
  );
  return { url, node };
}

/**
 * Deploys the ecosystem with the project's own deploy procedure and writes the deployment under
 * `root` (a temp dir, never the repo's deployments/). Spawn cooldown is 0 so one owner may spawn
 * several tokens back to back.
 */
export async function deploy(url: string, root: string): Promise<Deployment> {
  // hardhat.config.ts reads these when Hardhat loads; a local node's accounts are unlocked, so
  // never sign with a key from the caller's environment.
  process.env.RPC_URL = url;
  process.env.DEPLOYER_PRIVATE_KEY = "";
  const { network } = await import("hardhat");
  const { viem } = await network.create("rpc");
  const env = parseEnv(chainEnv, { RPC_URL: url, SPAWN_COOLDOWN_SECONDS: "0" });
  const { deployment } = await deployAndRecord(viem, env, root);
  return deployment;
}

/**
 * From here on blocks are mined only on `evm_mine`, so each block holds as many transactions as
 * the stream puts in it; a high gas limit keeps one batch in one block.
 */
export async function manualMining(url: string, gasLimit: bigint) {
  // The node prints and decodes every transaction otherwise: that costs more than mining them.
  await rpc(url, "hardhat_setLoggingEnabled", [false]);
  await rpc(url, "evm_setAutomine", [false]);
  await rpc(url, "evm_setIntervalMining", [0]);
  await rpc(url, "evm_setBlockGasLimit", [`0x${gasLimit.toString(16)}`]);
}

/**
 * One evm_mine per block: hardhat_mine reserves a range whose blocks are only materialized when
 * read, and Ponder then sees their hashes change (an "unrecoverable reorg").
 */
export async function mineEmpty(url: string, blocks: number) {
  for (let i = 0; i < blocks; i++) await rpc(url, "evm_mine");
}
