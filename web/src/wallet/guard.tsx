import type { ReactNode } from "react";
import { useConnection, useSwitchChain } from "wagmi";
import { usePlatform } from "../context.ts";
import { walletErrorText } from "./errors.ts";

/**
 * Wallet-only parts of a page: without a wallet, a prompt; on another chain, "Switch network";
 * else the children with the connected address.
 */
export function WithWallet({ children, what }: { children: (address: `0x${string}`) => ReactNode; what: string }) {
  const { config } = usePlatform();
  const connection = useConnection();
  const switchChain = useSwitchChain();
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
  return <>{children(connection.address)}</>;
}
