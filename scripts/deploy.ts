/**
 * Deploys the ecosystem to the chain at RPC_URL and writes deployments/<chainId>.json.
 * Run: `npm run deploy` (Hardhat's `rpc` network). On a local node the node's unlocked
 * accounts are used; elsewhere DEPLOYER_PRIVATE_KEY signs (see README).
 */
import { network } from "hardhat";
import { chainEnv, parseEnv } from "../config/env.ts";
import { deployAndRecord } from "./lib/deploy-and-record.ts";

const env = parseEnv(chainEnv);
const { viem } = await network.create();
const { deployment, path } = await deployAndRecord(viem, env);
console.log(`Deployed to chain ${deployment.chainId} from block ${deployment.startBlock}; wrote ${path}`);
for (const [name, address] of Object.entries(deployment.contracts)) console.log(`  ${name.padEnd(16)} ${address}`);
