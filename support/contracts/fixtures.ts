import { network } from "hardhat";
import { parseEventLogs } from "viem";
import { deployEcosystem, DEFAULT_SETTINGS, type EcosystemSettings } from "../../scripts/lib/deploy-ecosystem.ts";

/**
 * A fresh chain with the ecosystem deployed exactly as `scripts/deploy.ts` deploys it.
 * Wallets: admin, relayer, worker operator, treasury, then users alice, bob, carol, dave, then the
 * deposit factory's hot wallet and sweeper.
 */
export async function deployFixture(settings: EcosystemSettings = DEFAULT_SETTINGS) {
  const connection = await network.create();
  const { viem, networkHelpers } = connection;
  const [admin, relayer, operator, treasury, alice, bob, carol, dave, hotWallet, sweeper] =
    await viem.getWalletClients();
  const ecosystem = await deployEcosystem(
    viem,
    {
      admin: admin.account.address,
      relayer: relayer.account.address,
      workerOperator: operator.account.address,
      treasury: treasury.account.address,
      hotWallet: hotWallet.account.address,
      sweeper: sweeper.account.address,
    },
    settings,
  );
  const publicClient = await viem.getPublicClient();
  return {
    ...ecosystem,
    viem,
    networkHelpers,
    publicClient,
    settings,
    wallets: { admin, relayer, operator, treasury, alice, bob, carol, dave, hotWallet, sweeper },
  };
}

export type Fixture = Awaited<ReturnType<typeof deployFixture>>;

export const EMPTY_METADATA = { description: "", logoUri: "", website: "" } as const;
export const POOL_SIDE = { STABLE: 0, WRAPPED_NATIVE: 1 } as const;
export const TIER = { None: 0, Worker: 1, Scout: 2, Queen: 3 } as const;
export const WORKER_STATUS = { Active: 0, Idle: 1, Suspended: 2 } as const;
export const SUPPORT = { Yes: 0, No: 1, Abstain: 2 } as const;

type Wallet = Fixture["wallets"]["alice"];

/** Spawns a token for `owner` at the default fee and returns what AgentSpawned reported. */
export async function spawnToken(
  f: Pick<Fixture, "spawner" | "publicClient" | "settings">,
  owner: Wallet,
  symbol: string,
  {
    metadata = EMPTY_METADATA as { description: string; logoUri: string; website: string },
    side = POOL_SIDE.STABLE as number,
    supply = 0n,
  } = {},
) {
  const hash = await f.spawner.write.spawn([`${symbol} Agent`, symbol, supply, side, metadata], {
    account: owner.account,
    value: f.settings.spawnFee,
  });
  const receipt = await f.publicClient.waitForTransactionReceipt({ hash });
  const [event] = parseEventLogs({ abi: f.spawner.abi, eventName: "AgentSpawned", logs: receipt.logs });
  const { token, pool, nftId, workerId } = event.args;
  return { token, pool, nftId, workerId, receipt };
}
