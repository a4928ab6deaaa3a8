import type { BrowserContext } from "playwright-core";

/**
 * An injected EIP-1193 wallet for the browser suite: `window.ethereum`, also announced through
 * EIP-6963 (`eip6963:announceProvider`), holding one account of the local node. The node's dev
 * accounts are unlocked, so the wallet signs nothing itself: every request (eth_sendTransaction
 * as is, personal_sign, reads) is forwarded to the chain's JSON-RPC from the test process
 * through a Playwright binding, as an extension's background page would, outside the page's CSP.
 * It answers alone what a wallet answers alone: the accounts, the chain id and switching it.
 * `requests` records every method the page asked for, in order.
 */
export interface TestWallet {
  address: `0x${string}`;
  requests: string[];
  /** Whether the page's origin may see the account: kept here, so it survives reloads as a wallet's permission does. */
  connected: boolean;
}

export const TEST_WALLET_INFO = {
  uuid: "3f8c5a60-1d8e-4c55-9b1b-7f1d2c0e9a11",
  name: "Test Wallet",
  rdns: "org.example.testwallet",
  icon: "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 1 1'%3E%3Crect width='1' height='1'/%3E%3C/svg%3E",
};

export async function installTestWallet(
  context: BrowserContext,
  options: { rpcUrl: string; address: `0x${string}`; chainId: number },
): Promise<TestWallet> {
  const wallet: TestWallet = { address: options.address, requests: [], connected: false };
  let id = 0;
  await context.exposeBinding("__testWalletRpc", async (_source, method: string, params: unknown[]) => {
    // What the wallet answers alone: recorded, and the connection kept across page loads.
    if (method === "__wallet") {
      const [asked, connect] = params as [string, boolean | null];
      wallet.requests.push(asked);
      if (connect !== null) wallet.connected = connect;
      return { result: wallet.connected };
    }
    wallet.requests.push(method);
    // Forwarded as is: the node's answer, result or error, goes back to the page unchanged.
    const response = await fetch(options.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params: params ?? [] }),
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await response.json()) as {
      result?: unknown;
      error?: { code: number; message: string; data?: unknown };
    };
    return body.error ? { error: body.error } : { result: body.result ?? null };
  });
  await context.addInitScript(injectedWallet, {
    address: options.address,
    chainId: `0x${options.chainId.toString(16)}`,
    info: TEST_WALLET_INFO,
  });
  return wallet;
}

/** Runs in the page before its scripts. Self-contained: it is serialized into the page. */
function injectedWallet(config: { address: string; chainId: string; info: typeof TEST_WALLET_INFO }) {
  type Listener = (...args: unknown[]) => void;
  // The page's globals (this file is typed for Node).
  const page = globalThis as unknown as {
    __testWalletRpc: (method: string, params: unknown[]) => Promise<any>;
    ethereum: unknown;
    dispatchEvent(event: Event): boolean;
    addEventListener(type: string, listener: () => void): void;
  };
  const rpc = page.__testWalletRpc;
  const listeners = new Map<string, Set<Listener>>();
  const emit = (event: string, value: unknown) => {
    for (const listener of listeners.get(event) ?? []) listener(value);
  };
  let chainId = config.chainId;
  const rpcError = (code: number, message: string) => Object.assign(new Error(message), { code });
  const provider = {
    isTestWallet: true,
    async request({ method, params = [] }: { method: string; params?: unknown[] }) {
      /** Records a method answered here; `connect` sets the connection. Resolves to the connection. */
      const local = async (connect: boolean | null = null): Promise<boolean> =>
        (await rpc("__wallet", [method, connect])).result;
      switch (method) {
        case "eth_requestAccounts":
        case "wallet_requestPermissions":
          await local(true);
          emit("connect", { chainId });
          return method === "eth_requestAccounts" ? [config.address] : [{ parentCapability: "eth_accounts" }];
        case "eth_accounts":
          return (await local()) ? [config.address] : [];
        case "wallet_getPermissions":
          return (await local()) ? [{ parentCapability: "eth_accounts" }] : [];
        case "wallet_revokePermissions":
          await local(false);
          emit("accountsChanged", []);
          return null;
        case "eth_chainId":
          await local();
          return chainId;
        case "net_version":
          await local();
          return String(Number.parseInt(chainId, 16));
        case "wallet_switchEthereumChain": {
          await local();
          const wanted = (params[0] as { chainId: string }).chainId.toLowerCase();
          // The wallet knows one chain, the local node's: switching to it works, to others is 4902.
          if (Number.parseInt(wanted, 16) !== Number.parseInt(config.chainId, 16))
            throw rpcError(4902, `Unrecognized chain ID ${wanted}`);
          if (wanted !== chainId) {
            chainId = config.chainId;
            emit("chainChanged", chainId);
          }
          return null;
        }
        case "wallet_addEthereumChain":
          await local();
          return null;
        default: {
          const answer = await rpc(method, params);
          if (answer.error) throw Object.assign(new Error(answer.error.message), answer.error);
          return answer.result;
        }
      }
    },
    on(event: string, listener: Listener) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)!.add(listener);
      return provider;
    },
    removeListener(event: string, listener: Listener) {
      listeners.get(event)?.delete(listener);
      return provider;
    },
  };
  page.ethereum = provider;
  const announce = () =>
    page.dispatchEvent(
      new CustomEvent("eip6963:announceProvider", { detail: Object.freeze({ info: config.info, provider }) }),
    );
  page.addEventListener("eip6963:requestProvider", announce);
  announce();
}
