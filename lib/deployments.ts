import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { z } from "zod";
import { addressText } from "./address.ts";

/**
 * `deployments/<chainId>.json`: what the indexer, the APIs and the seed need to find the
 * contracts on a chain. Addresses are checksummed; `startBlock` is where indexing begins.
 */
export const CONTRACT_NAMES = [
  "MockStableToken",
  "WrappedNative",
  "AgentRegistry",
  "AgentToken",
  "AgentPool",
  "AgentSpawner",
  "ActionLog",
  "WorkerVoting",
  "Booster",
  "DepositForwarderFactory",
  /** The implementation every deposit address is a minimal proxy (clone) of. */
  "DepositForwarder",
] as const;
export type ContractName = (typeof CONTRACT_NAMES)[number];

const address = addressText;

export const deploymentSchema = z.object({
  chainId: z.number().int().positive(),
  startBlock: z.number().int().nonnegative(),
  deployedAt: z.string(),
  /** Where the ABIs are: Hardhat artifacts, one JSON file per contract (`abi` field). */
  artifacts: z.record(z.enum(CONTRACT_NAMES), z.string()),
  contracts: z.record(z.enum(CONTRACT_NAMES), address),
  accounts: z.object({
    admin: address,
    relayer: address,
    workerOperator: address,
    treasury: address,
    /**
     * DepositForwarderFactory's hot wallet at deploy time (the factory's `hotWallet()` is the live
     * value) and the account granted its sweeper role. Every deploy records both; optional so a
     * record written without them still reads.
     */
    hotWallet: address.optional(),
    sweeper: address.optional(),
  }),
  /** True when the stable and wrapped-native tokens are this deployment's mocks. */
  mockAssets: z.boolean(),
});
export type Deployment = z.infer<typeof deploymentSchema>;

export const DEPLOYMENTS_DIR = "deployments";

export function deploymentPath(chainId: number, root = process.cwd()): string {
  return join(root, DEPLOYMENTS_DIR, `${chainId}.json`);
}

export function artifactPath(name: ContractName): string {
  const folder = name === "MockStableToken" || name === "WrappedNative" ? "contracts/mocks" : "contracts";
  return `artifacts/${folder}/${name}.sol/${name}.json`;
}

export async function writeDeployment(deployment: Deployment, root = process.cwd()): Promise<string> {
  const path = deploymentPath(deployment.chainId, root);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(deploymentSchema.parse(deployment), null, 2)}\n`);
  return path;
}

export async function readDeployment(chainId: number, root = process.cwd()): Promise<Deployment> {
  const path = deploymentPath(chainId, root);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    throw new Error(`No deployment for chain ${chainId}: ${path} is missing (run npm run deploy first)`);
  }
  return deploymentSchema.parse(JSON.parse(text));
}
