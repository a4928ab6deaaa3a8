import type { HardhatViemHelpers } from "@nomicfoundation/hardhat-viem/types";
import { type Address, keccak256, parseEther, toHex, zeroAddress } from "viem";

/** Economic and governance settings of a deployment; every field has a local-chain default. */
export interface EcosystemSettings {
  spawnFee: bigint;
  spawnCooldownSeconds: bigint;
  poolFeeTier: number;
  stableVirtualReserve: bigint;
  nativeVirtualReserve: bigint;
  /** Seconds between a proposal and the start of its voting (its snapshot); at least 1 hour. */
  votingDelaySeconds: bigint;
  votingPeriodSeconds: bigint;
  quorumBps: number;
  passingThresholdBps: number;
  boostTiers: { tier: number; price: bigint; durationSeconds: bigint }[];
}

export const DEFAULT_SETTINGS: EcosystemSettings = {
  spawnFee: parseEther("0.01"),
  spawnCooldownSeconds: 3600n,
  poolFeeTier: 3000,
  // Launch price of a default 1e9-token spawn, all of it in the pool: 10,000 mUSD (6 decimals) or 5 WETH over 1e9 tokens.
  stableVirtualReserve: 10_000n * 10n ** 6n,
  nativeVirtualReserve: parseEther("5"),
  votingDelaySeconds: 24n * 3600n,
  votingPeriodSeconds: 3n * 24n * 3600n,
  quorumBps: 400,
  passingThresholdBps: 5000,
  boostTiers: [
    { tier: 1, price: parseEther("0.01"), durationSeconds: 24n * 3600n },
    { tier: 2, price: parseEther("0.05"), durationSeconds: 3n * 24n * 3600n },
    { tier: 3, price: parseEther("0.1"), durationSeconds: 7n * 24n * 3600n },
  ],
};

export interface EcosystemAccounts {
  /** Holds every admin role. */
  admin: Address;
  /** Sends the API's signed spawns and votes on-chain (spawnFor, castVoteFor). */
  relayer: Address;
  /** Operator of new workers: the agent runtime's address. */
  workerOperator: Address;
  /** Receives boost payments. */
  treasury: Address;
  /** Where every deposit sweep sends (DepositForwarderFactory's hot wallet). */
  hotWallet: Address;
  /** Granted the sweeper role: deploys and sweeps deposit forwarders. */
  sweeper: Address;
}

export interface ExternalAssets {
  /** Existing stable token and wrapped native token; mocks are deployed when absent. */
  stableToken?: Address;
  wrappedNative?: Address;
}

export const ROLE = {
  DEFAULT_ADMIN: "0x0000000000000000000000000000000000000000000000000000000000000000",
  REGISTRAR: keccak256(toHex("REGISTRAR_ROLE")),
  MANAGER: keccak256(toHex("MANAGER_ROLE")),
  CONFIG: keccak256(toHex("CONFIG_ROLE")),
  ACTIVITY: keccak256(toHex("ACTIVITY_ROLE")),
  OVERRIDE: keccak256(toHex("OVERRIDE_ROLE")),
  RELAYER: keccak256(toHex("RELAYER_ROLE")),
  PROPOSER: keccak256(toHex("PROPOSER_ROLE")),
  SWEEPER: keccak256(toHex("SWEEPER_ROLE")),
} as const;

/**
 * Deploys and wires the whole ecosystem with the admin's wallet: the one deployment procedure
 * used by `scripts/deploy.ts`, the seed and every contract test fixture.
 */
export async function deployEcosystem(
  viem: HardhatViemHelpers,
  accounts: EcosystemAccounts,
  settings: EcosystemSettings = DEFAULT_SETTINGS,
  assets: ExternalAssets = {},
) {
  const publicClient = await viem.getPublicClient();
  const startBlock = await publicClient.getBlockNumber();
  const from = { client: { wallet: await viem.getWalletClient(accounts.admin) } };

  const stableToken = assets.stableToken
    ? await viem.getContractAt("MockStableToken", assets.stableToken, from)
    : await viem.deployContract("MockStableToken", [], from);
  const wrappedNative = assets.wrappedNative
    ? await viem.getContractAt("WrappedNative", assets.wrappedNative, from)
    : await viem.deployContract("WrappedNative", [], from);

  const registry = await viem.deployContract("AgentRegistry", [accounts.admin], from);
  const tokenImplementation = await viem.deployContract("AgentToken", [], from);
  const poolImplementation = await viem.deployContract("AgentPool", [], from);
  const spawner = await viem.deployContract(
    "AgentSpawner",
    [
      registry.address,
      tokenImplementation.address,
      poolImplementation.address,
      stableToken.address,
      wrappedNative.address,
      accounts.admin,
      {
        spawnFee: settings.spawnFee,
        cooldown: settings.spawnCooldownSeconds,
        feeTier: settings.poolFeeTier,
        stableVirtualReserve: settings.stableVirtualReserve,
        nativeVirtualReserve: settings.nativeVirtualReserve,
        workerOperator: accounts.workerOperator,
      },
    ],
    from,
  );
  const actionLog = await viem.deployContract("ActionLog", [registry.address], from);
  const voting = await viem.deployContract(
    "WorkerVoting",
    [
      registry.address,
      accounts.admin,
      settings.votingDelaySeconds,
      settings.votingPeriodSeconds,
      settings.quorumBps,
      settings.passingThresholdBps,
    ],
    from,
  );
  const booster = await viem.deployContract("Booster", [registry.address, accounts.admin, accounts.treasury], from);
  // Deploys the forwarder implementation in its constructor: every deposit address is a clone of it.
  const depositFactory = await viem.deployContract(
    "DepositForwarderFactory",
    [accounts.admin, accounts.hotWallet],
    from,
  );
  const depositForwarderImplementation = await depositFactory.read.forwarderImplementation();

  const grants = [
    registry.write.grantRole([ROLE.REGISTRAR, spawner.address]),
    registry.write.grantRole([ROLE.ACTIVITY, actionLog.address]),
    // Overrides suspend and resume through the registry, in the same transaction as the entry.
    registry.write.grantRole([ROLE.OVERRIDE, actionLog.address]),
    registry.write.grantRole([ROLE.CONFIG, voting.address]),
    registry.write.grantRole([ROLE.CONFIG, accounts.admin]),
    registry.write.grantRole([ROLE.MANAGER, accounts.admin]),
    spawner.write.grantRole([ROLE.RELAYER, accounts.relayer]),
    registry.write.grantRole([ROLE.RELAYER, accounts.relayer]),
    voting.write.grantRole([ROLE.RELAYER, accounts.relayer]),
    voting.write.grantRole([ROLE.PROPOSER, accounts.relayer]),
    depositFactory.write.grantRole([ROLE.SWEEPER, accounts.sweeper]),
  ];
  for (const grant of grants) await mined(publicClient, await grant);
  for (const { tier, price, durationSeconds } of settings.boostTiers) {
    await mined(publicClient, await booster.write.configureTier([tier, price, durationSeconds, true]));
  }

  return {
    startBlock,
    stableToken,
    wrappedNative,
    registry,
    tokenImplementation,
    poolImplementation,
    spawner,
    actionLog,
    voting,
    booster,
    depositFactory,
    depositForwarderImplementation,
  };
}

/** Waits for the transaction and throws unless it succeeded. */
async function mined(publicClient: Awaited<ReturnType<HardhatViemHelpers["getPublicClient"]>>, hash: `0x${string}`) {
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
  return receipt;
}

export { zeroAddress };
