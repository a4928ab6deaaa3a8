import type { ReactNode } from "react";
import { useConnection, useSwitchChain } from "wagmi";
import { usePlatform } from "../context.ts";
import { useChainDown } from "./ChainStatus.tsx";
import { walletErrorText } from "./errors.ts";

/**
 * Wallet-only parts of a page: without a wallet, a prompt; on another chain, "Switch network";
 * while the chain does not answer, a word on that; else the children with the connected address.
 */
export function WithWallet({ children, what }: { children: (address: `0x${string}`) => ReactNode; what: string }) {
  const { config } = usePlatform();
  const connection = useConnection();
  const switchChain = useSwitchChain();
  const chainDown = useChainDown();
  if (connection.status !== "connected" || !connection.address) {
    return <p className="muted">Connect a wallet (top right) to {what}.</p>;
  }
  if (connection.chainId !== config.chainId) {
    return (
      <div className="state error" role="alert">
        <p>
          Your wallet is on chain {connection.chainId}; the platform runs on chain {config.chainId}.
        </p>
        <button type="button" className="warning" onClick={() => switchChain.switchChain({ chainId: config.chainId })}>
          Switch network
        </button>
        {switchChain.error && <p className="error-text">{walletErrorText(switchChain.error)}</p>}
      </div>
    );
  }
  if (chainDown) return <p className="muted">The chain is not answering: you can {what} once it is back.</p>;
  return <>{children(connection.address)}</>;
}
