import { createPublicClient, http, type PublicClient } from "viem";
import type { ChainGatewayConfig } from "./config.ts";

/**
 * The gateway's one JSON-RPC client of the node, shared by the deposit watcher, the sweeper, the
 * reserves and the withdrawal sender: calls made together (a range's headers, an address's
 * balances) go as one batch, and every call is bounded by CHAIN_RPC_TIMEOUT_MS and never retried
 * by viem (each caller backs off on its own).
 */
export function chainClient(config: Pick<ChainGatewayConfig, "rpcUrl" | "rpcTimeoutMs">): PublicClient {
  return createPublicClient({
    transport: http(config.rpcUrl, { timeout: config.rpcTimeoutMs, retryCount: 0, batch: { batchSize: 25 } }),
  }) as PublicClient;
}
