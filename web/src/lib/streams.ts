/** The shapes of the ecosystem API's stream events the pages read (api/README.md, "Streams"). */

export interface SwapEvent {
  txHash: string;
  logIndex: number;
  side: "buy" | "sell";
  trader: string;
  tokenAmount: string;
  pairAmount: string;
  price: string;
  amountIn: string;
  amountOut: string;
  blockNumber: number;
  timestamp: number;
  tokenAddress: string;
  poolAddress: string;
}

export interface SpawnEvent {
  token: { address: string; name: string; symbol: string; totalSupply: string; owner: string };
  pool: { address: string; side: "STABLE" | "WRAPPED_NATIVE"; feeTier: number };
  worker: { id: number; agentNftId: number };
  txHash: string;
  spawnedAt: number;
}

export function launchpadStreamUrl(base: string, types: string[], tokenAddress?: string): string {
  const url = new URL("/api/launchpad/stream", base);
  url.searchParams.set("types", types.join(","));
  if (tokenAddress) url.searchParams.set("tokenAddress", tokenAddress);
  return url.toString();
}
