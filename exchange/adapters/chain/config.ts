import type { Address, LocalAccount } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import type { ExchangeEnv } from "../../../config/env.ts";
import { type Deployment, readDeployment } from "../../../lib/deployments.ts";

// The chain gateway's settings, resolved once at start-up from the environment and the
// deployment record (deployments/<CHAIN_ID>.json).

const LOCAL_CHAIN_ID = 31337;
/** Hardhat's default accounts: on the local chain the hot wallet is account #15 (DEPLOY sets it so). */
const HARDHAT_MNEMONIC = "test test test test test test test test test test test junk";
const LOCAL_HOT_WALLET_INDEX = 15;

export interface ChainGatewayConfig {
  readonly rpcUrl: string;
  readonly chainId: number;
  readonly rpcTimeoutMs: number;
  readonly pollMs: number;
  /** Blocks deep, the block itself counted, before a deposit is credited or a withdrawal completed. */
  readonly confirmations: number;
  readonly deployment: Deployment;
  /** Signs withdrawals and sweeps (the factory's hot wallet and sweeper). */
  readonly hotWallet: LocalAccount;
}

/** DEPOSIT_CONFIRMATIONS unset: 2 on the local chain, 64 (two epochs: finalized) on Ethereum, 12 elsewhere. */
export function defaultConfirmations(chainId: number): number {
  if (chainId === LOCAL_CHAIN_ID) return 2;
  if (chainId === 1) return 64;
  return 12;
}

export async function resolveChainGatewayConfig(env: ExchangeEnv, root = process.cwd()): Promise<ChainGatewayConfig> {
  const deployment = await readDeployment(env.CHAIN_ID, root);
  let hotWallet: LocalAccount;
  if (env.HOT_WALLET_PRIVATE_KEY) hotWallet = privateKeyToAccount(env.HOT_WALLET_PRIVATE_KEY as `0x${string}`);
  else if (env.CHAIN_ID === LOCAL_CHAIN_ID)
    hotWallet = mnemonicToAccount(HARDHAT_MNEMONIC, { addressIndex: LOCAL_HOT_WALLET_INDEX });
  else throw new Error(`HOT_WALLET_PRIVATE_KEY is required on chain ${env.CHAIN_ID} (CHAIN_GATEWAY=true)`);
  const expected = deployment.accounts.hotWallet as Address | undefined;
  if (expected && expected.toLowerCase() !== hotWallet.address.toLowerCase())
    console.warn(
      `exchange: the hot wallet key is ${hotWallet.address}, but deployments/${env.CHAIN_ID}.json records ${expected}: deposit sweeps go to the factory's hotWallet()`,
    );
  return {
    rpcUrl: env.RPC_URL,
    chainId: env.CHAIN_ID,
    rpcTimeoutMs: env.CHAIN_RPC_TIMEOUT_MS,
    pollMs: env.CHAIN_POLL_MS,
    confirmations: env.DEPOSIT_CONFIRMATIONS ?? defaultConfirmations(env.CHAIN_ID),
    deployment,
    hotWallet,
  };
}
