import { type Address, getAddress } from "viem";
import type { Exchange } from "../../application/index.ts";
import type { Db } from "../store/index.ts";
import { hasChainAsset } from "./assets.ts";
import type { ChainGatewayConfig } from "./config.ts";
import { DepositAddresses } from "./deposit-addresses.ts";
import { type PendingDepositView, DepositWatcher, type WatcherStatus } from "./deposits/watcher.ts";
import { measureReserves, type ReserveRow } from "./reserves.ts";

// The exchange joined to a chain (CHAIN_GATEWAY=true): per-user deposit addresses, the deposit
// watcher, and solvency measured on-chain. What the HTTP routes hold.

export { type ChainGatewayConfig, defaultConfirmations, resolveChainGatewayConfig } from "./config.ts";
export { DepositAddresses, depositSaltOf } from "./deposit-addresses.ts";
export type { PendingDepositView, ReserveRow, WatcherStatus };

export interface ChainGateway {
  readonly chainId: number;
  readonly confirmations: number;
  /** The user's deposit address (checksummed): the same on every call, for every currency. */
  depositAddress(userId: string): Address;
  /** Whether deposits and withdrawals of the currency move on this chain. */
  moves(currencyCode: string): boolean;
  pendingDeposits(userId: string): PendingDepositView[];
  /** Whether a deposit id is one a watcher of this chain credited (chain:<chainId>:...). */
  isChainDeposit(depositId: string): boolean;
  watcherStatus(): WatcherStatus;
  /** Rejects when the node does not answer (the route answers 503). */
  reserves(): Promise<ReserveRow[]>;
  close(): Promise<void>;
}

export async function startChainGateway(args: {
  readonly exchange: Exchange;
  readonly db: Db;
  readonly config: ChainGatewayConfig;
  readonly log: (message: string) => void;
}): Promise<ChainGateway & { readonly watcher: DepositWatcher }> {
  const { exchange, db, config, log } = args;
  const addresses = new DepositAddresses(config.deployment);
  for (const id of exchange.userIds()) addresses.of(id);
  const watcher = new DepositWatcher({ exchange, db, config, addresses, log });
  watcher.start();
  log(
    `exchange: chain gateway on chain ${config.chainId} (${config.rpcUrl}): deposits credited after ${config.confirmations} confirmations; hot wallet ${config.hotWallet.address}`,
  );
  return {
    chainId: config.chainId,
    confirmations: config.confirmations,
    watcher,
    depositAddress: (userId) => getAddress(addresses.of(userId)),
    moves: (code) => hasChainAsset(exchange.reference, config.deployment, code),
    pendingDeposits: (userId) => watcher.pendingOf(userId),
    isChainDeposit: (id) => id.startsWith(`chain:${config.chainId}:`),
    watcherStatus: () => watcher.status(),
    reserves: () => measureReserves({ exchange, client: watcher.client, config, addresses }),
    close: () => watcher.close(),
  };
}
