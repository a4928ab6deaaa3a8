import { type Address, getAddress, type Hex, type PublicClient } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { AgentRegistryAbi } from "../../indexer/abis.ts";

/**
 * Which keys the runtime acts with. Keys come from the environment; on a local node (chain 31337)
 * without them, from the node's well-known accounts that hold each role: the deployment's worker
 * operator, and every account the registry names as a queen's or a scout's operator.
 */

const HARDHAT_MNEMONIC = "test test test test test test test test test test test junk";
const LOCAL_CHAIN_ID = 31337;
const LOCAL_ACCOUNTS = 20;

export type LocalAccount = ReturnType<typeof privateKeyToAccount> | ReturnType<typeof mnemonicToAccount>;

export interface Role {
  readonly name: string;
  readonly tier: "worker" | "scout" | "queen";
  /** The queen's or scout's NFT id (0 for the worker operator, which acts for many workers). */
  readonly nftId: bigint;
  readonly account: LocalAccount;
}

export interface KeyConfig {
  readonly chainId: number;
  readonly workerKey?: Hex;
  readonly queenKey?: Hex;
  readonly scoutKeys: readonly Hex[];
}

const TIER_SCOUT = 2;
const TIER_QUEEN = 3;

export async function resolveRoles(
  client: PublicClient,
  registry: Address,
  workerOperator: Address,
  keys: KeyConfig,
): Promise<Role[]> {
  const local = keys.chainId === LOCAL_CHAIN_ID;
  const localAccounts = local
    ? Array.from({ length: LOCAL_ACCOUNTS }, (_, i) => mnemonicToAccount(HARDHAT_MNEMONIC, { addressIndex: i }))
    : [];
  const roleOf = async (address: Address) => {
    const [tier, nftId] = await client.readContract({
      address: registry,
      abi: AgentRegistryAbi,
      functionName: "agentOfOperator",
      args: [address],
    });
    return { tier: Number(tier), nftId };
  };
  const roles: Role[] = [];

  const worker = keys.workerKey
    ? privateKeyToAccount(keys.workerKey)
    : localAccounts.find((a) => getAddress(a.address) === getAddress(workerOperator));
  if (worker) roles.push({ name: "workers", tier: "worker", nftId: 0n, account: worker });

  const configured = [
    ...(keys.queenKey ? [privateKeyToAccount(keys.queenKey)] : []),
    ...keys.scoutKeys.map((k) => privateKeyToAccount(k)),
  ];
  // A configured key must hold its role; the local scan keeps the accounts that do.
  const explicit = configured.length > 0;
  for (const account of explicit ? configured : localAccounts) {
    const { tier, nftId } = await roleOf(account.address);
    if (tier === TIER_QUEEN) roles.push({ name: `queen-${nftId}`, tier: "queen", nftId, account });
    else if (tier === TIER_SCOUT) roles.push({ name: `scout-${nftId}`, tier: "scout", nftId, account });
    else if (explicit)
      throw new Error(`${account.address} is not registered as a queen's or scout's operator in the AgentRegistry`);
  }
  return roles;
}
