import { type Address, erc20Abi, type PublicClient } from "viem";

// What an address holds on the joined chain: the native coin and each token asked for. The
// reserves and the sweeper's start-up scan both read deposit addresses (and the reserves the hot
// wallet) this way; the reads of one address go together (one JSON-RPC batch on a batching client).

export interface Balances {
  readonly native: bigint;
  /** Per token contract asked for (as given). */
  readonly tokens: ReadonlyMap<Address, bigint>;
}

export async function balancesOf(client: PublicClient, owner: Address, tokens: readonly Address[]): Promise<Balances> {
  const [native, ...held] = await Promise.all([
    client.getBalance({ address: owner }),
    ...tokens.map((token) =>
      client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [owner] }),
    ),
  ]);
  return { native: native!, tokens: new Map(tokens.map((token, i) => [token, held[i]!])) };
}

/** Whether the balances hold anything at all. */
export const holdsAny = (balances: Balances): boolean =>
  balances.native > 0n || [...balances.tokens.values()].some((amount) => amount > 0n);
