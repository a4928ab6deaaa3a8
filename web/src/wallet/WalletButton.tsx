import { useState } from "react";
import { type Connector, useConnect, useConnection, useConnectors, useDisconnect, useSwitchChain } from "wagmi";
import { usePlatform } from "../context.ts";
import { shortAddress } from "../lib/format.ts";
import { walletErrorText } from "./errors.ts";

/**
 * The wallets to offer: the EIP-6963 ones when any announced themselves, else the plain
 * `window.ethereum` one (a wallet that announces is usually also window.ethereum: offering both
 * would list it twice).
 */
function offeredConnectors(connectors: readonly Connector[]): Connector[] {
  const announced = connectors.filter((c) => c.type === "injected" && c.id !== "injected");
  if (announced.length > 0) return announced;
  const plain = typeof window !== "undefined" && (window as { ethereum?: unknown }).ethereum !== undefined;
  return plain ? connectors.filter((c) => c.id === "injected") : [];
}

export function WalletButton() {
  const { config } = usePlatform();
  const connection = useConnection();
  const connectors = useConnectors();
  const connect = useConnect();
  const disconnect = useDisconnect();
  const switchChain = useSwitchChain();
  const [choosing, setChoosing] = useState(false);

  if (connection.status === "connected" && connection.address) {
    const wrongChain = connection.chainId !== config.chainId;
    return (
      <div className="wallet">
        {wrongChain && (
          <button
            type="button"
            className="warning"
            onClick={() => switchChain.switchChain({ chainId: config.chainId })}
            disabled={switchChain.isPending}
          >
            Switch network
          </button>
        )}
        <span className="wallet-address" title={connection.address}>
          {shortAddress(connection.address)}
        </span>
        <button type="button" className="secondary" onClick={() => disconnect.disconnect()}>
          Disconnect
        </button>
        {switchChain.error && (
          <span role="alert" className="error-text">
            {walletErrorText(switchChain.error)}
          </span>
        )}
      </div>
    );
  }

  const offered = offeredConnectors(connectors);
  const onConnect = () => {
    if (offered.length === 1) connect.connect({ connector: offered[0]!, chainId: config.chainId });
    else setChoosing((open) => !open);
  };
  return (
    <div className="wallet">
      <button
        type="button"
        onClick={onConnect}
        disabled={connect.isPending}
        aria-expanded={offered.length > 1 ? choosing : undefined}
      >
        Connect wallet
      </button>
      {choosing && offered.length !== 1 && (
        <div className="wallet-menu">
          {offered.length === 0 ? (
            <p>No browser wallet found. Install one (any wallet that injects into the page) and reload.</p>
          ) : (
            <ul>
              {offered.map((connector) => (
                <li key={connector.uid}>
                  <button
                    type="button"
                    className="secondary"
                    onClick={() => {
                      setChoosing(false);
                      connect.connect({ connector, chainId: config.chainId });
                    }}
                  >
                    {connector.name}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {connect.error && (
        <span role="alert" className="error-text">
          {walletErrorText(connect.error)}
        </span>
      )}
    </div>
  );
}
