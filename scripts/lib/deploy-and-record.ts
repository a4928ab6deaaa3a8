import type { HardhatViemHelpers } from "@nomicfoundation/hardhat-viem/types";
import { getAddress } from "viem";
import type { ChainEnv } from "../../config/env.ts";
import { DEFAULT_SETTINGS, deployEcosystem } from "./deploy-ecosystem.ts";
import { artifactPath, CONTRACT_NAMES, type Deployment, writeDeployment } from "../../lib/deployments.ts";

/**
 * Well-known roles of the local node's accounts, so seed, agents and the exchange can find their
 * keys. 4..14 are the demo's users, queen and scouts (scripts/lib/seed-demo.ts, exchange/demo);
 * the hot wallet takes #15, which nothing else uses: its balance is the demo seed's stable-token
 * float (scripts/lib/seed-demo.ts) and what sweeps sent it.
 */
export const LOCAL_ACCOUNT_INDEX = { admin: 0, relayer: 1, workerOperator: 2, treasury: 3, hotWallet: 15 } as const;

/** Deploys with settings from the environment and records the result in deployments/. */
export async function deployAndRecord(viem: HardhatViemHelpers, env: ChainEnv, root = process.cwd()) {
  const wallets = await viem.getWalletClients();
  const publicClient = await viem.getPublicClient();
  const chainId = await publicClient.getChainId();
  const local = !env.DEPLOYER_PRIVATE_KEY;
  const pick = (configured: string | undefined, localIndex: number) =>
    getAddress(configured ?? wallets[local ? localIndex : 0].account.address);
  const accounts = {
    admin: getAddress(wallets[0].account.address),
    relayer: pick(env.RELAYER_ADDRESS, LOCAL_ACCOUNT_INDEX.relayer),
    workerOperator: pick(env.WORKER_OPERATOR_ADDRESS, LOCAL_ACCOUNT_INDEX.workerOperator),
    treasury: pick(env.TREASURY_ADDRESS, LOCAL_ACCOUNT_INDEX.treasury),
    hotWallet: pick(env.HOT_WALLET_ADDRESS, LOCAL_ACCOUNT_INDEX.hotWallet),
    sweeper: pick(env.SWEEPER_ADDRESS ?? env.HOT_WALLET_ADDRESS, LOCAL_ACCOUNT_INDEX.hotWallet),
  };
  const settings = {
    ...DEFAULT_SETTINGS,
    spawnFee: env.SPAWN_FEE_WEI ?? DEFAULT_SETTINGS.spawnFee,
    spawnCooldownSeconds:
      env.SPAWN_COOLDOWN_SECONDS !== undefined
        ? BigInt(env.SPAWN_COOLDOWN_SECONDS)
        : DEFAULT_SETTINGS.spawnCooldownSeconds,
  };
  const ecosystem = await deployEcosystem(viem, accounts, settings, {
    stableToken: env.STABLE_TOKEN_ADDRESS as `0x${string}` | undefined,
    wrappedNative: env.WRAPPED_NATIVE_ADDRESS as `0x${string}` | undefined,
  });
  const contracts = {
    MockStableToken: ecosystem.stableToken.address,
    WrappedNative: ecosystem.wrappedNative.address,
    AgentRegistry: ecosystem.registry.address,
    AgentToken: ecosystem.tokenImplementation.address,
    AgentPool: ecosystem.poolImplementation.address,
    AgentSpawner: ecosystem.spawner.address,
    ActionLog: ecosystem.actionLog.address,
    WorkerVoting: ecosystem.voting.address,
    Booster: ecosystem.booster.address,
    DepositForwarderFactory: ecosystem.depositFactory.address,
    DepositForwarder: ecosystem.depositForwarderImplementation,
  };
  const deployment: Deployment = {
    chainId,
    startBlock: Number(ecosystem.startBlock),
    deployedAt: new Date().toISOString(),
    artifacts: Object.fromEntries(CONTRACT_NAMES.map((name) => [name, artifactPath(name)])) as Deployment["artifacts"],
    contracts: Object.fromEntries(
      Object.entries(contracts).map(([k, v]) => [k, getAddress(v)]),
    ) as Deployment["contracts"],
    accounts,
    mockAssets: !env.STABLE_TOKEN_ADDRESS && !env.WRAPPED_NATIVE_ADDRESS,
  };
  const path = await writeDeployment(deployment, root);
  return { deployment, path, ecosystem, settings };
}
