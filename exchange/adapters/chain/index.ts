import { type Address, getAddress, type PublicClient } from "viem";
import type { Exchange } from "../../application/index.ts";
import type { Db } from "../store/index.ts";
import { hasChainAsset } from "./assets.ts";
import { chainClient } from "./client.ts";
import type { ChainGatewayConfig } from "./config.ts";
import { DepositAddresses } from "./deposit-addresses.ts";
import { type PendingDepositView, DepositWatcher, type WatcherStatus } from "./deposits/watcher.ts";
import { measureReserves, type ReserveRow } from "./reserves.ts";
import { startSweeper, type Sweeper } from "./sweeper.ts";
import type { Call } from "../../../relayer/index.ts";

// The exchange joined to a chain (CHAIN_GATEWAY=true): per-user deposit addresses, the deposit
// watcher, and solvency measured on-chain. What the HTTP routes hold. The gateway owns the one
// client of the node and the one map of deposit addresses; the withdrawal sender is started after
// it and given both (its guard refuses deposit addresses as destinations).

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
  /** Sends a hot-wallet transaction through its relayer (the withdrawal sender's): sweeps use it. */
  readonly sendFromHotWallet?: (call: Call) => Promise<{ status: "success" | "reverted" }>;
  /** Deposit addresses credited are swept at most this often (DEPOSIT_SWEEP_INTERVAL_MS). */
  readonly sweepIntervalMs?: number;
}): Promise<
  ChainGateway & {
    readonly watcher: DepositWatcher;
    readonly sweeper?: Sweeper;
    /** For the withdrawal sender: the same node client and deposit addresses. */
    readonly client: PublicClient;
    readonly addresses: DepositAddresses;
  }
> {
  const { exchange, db, config, log } = args;
  const client = chainClient(config);
  const addresses = new DepositAddresses(config.deployment);
  addresses.addUsers(exchange);
  const watcher = new DepositWatcher({ exchange, db, config, addresses, client, log });
  watcher.start();
  const sweeper =
    args.sendFromHotWallet === undefined
      ? undefined
      : startSweeper({
          exchange,
          config,
          addresses,
          client,
          send: args.sendFromHotWallet,
          intervalMs: args.sweepIntervalMs ?? 15_000,
          log,
        });
  if (sweeper) watcher.onCredit((address) => sweeper.mark(address));
  log(
    `exchange: chain gateway on chain ${config.chainId} (${config.rpcUrl}): deposits credited after ${config.confirmations} confirmations; hot wallet ${config.hotWallet.address}`,
  );
  return {
    chainId: config.chainId,
    confirmations: config.confirmations,
    watcher,
    sweeper,
    client,
    addresses,
    depositAddress: (userId) => getAddress(addresses.of(userId)),
    moves: (code) => hasChainAsset(exchange.reference, config.deployment, code),
    pendingDeposits: (userId) => watcher.pendingOf(userId),
    isChainDeposit: (id) => id.startsWith(`chain:${config.chainId}:`),
    watcherStatus: () => watcher.status(),
    reserves: () => measureReserves({ exchange, client, config, addresses }),
    close: async () => {
      await sweeper?.close();
      await watcher.close();
    },
  };
}
