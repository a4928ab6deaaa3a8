import { createConfig, http, injected } from "wagmi";
import { defineChain } from "viem";
import type { WebConfig } from "../config.ts";

/**
 * The wallet side: injected wallets only. wagmi discovers every EIP-6963 wallet by itself
 * (multiInjectedProviderDiscovery) and `injected()` is `window.ethereum` for wallets that do not
 * announce themselves. No WalletConnect: it needs a hosted project id. The one chain is the
 * platform's (config.json), so a wallet elsewhere is offered "Switch network".
 */
export function platformChain(config: WebConfig) {
  return defineChain({
    id: config.chainId,
    name: config.chainId === 31337 ? "Agent ecosystem (local)" : `Agent ecosystem (${config.chainId})`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [config.rpcUrl] } },
  });
}

export function createWagmiConfig(config: WebConfig) {
  const chain = platformChain(config);
  return createConfig({
    chains: [chain],
    connectors: [injected({ shimDisconnect: true })],
    multiInjectedProviderDiscovery: true,
    transports: { [chain.id]: http(config.rpcUrl) },
    // A local chain mines on demand: poll receipts often so a trade shows within a second.
    pollingInterval: 500,
  });
}
