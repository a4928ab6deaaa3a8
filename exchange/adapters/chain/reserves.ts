import type { Address, PublicClient } from "viem";
import type { CurrencyReconciliation, Exchange } from "../../application/index.ts";
import { type ChainAsset, depositTokens, withdrawalAsset } from "./assets.ts";
import { type Balances, balancesOf } from "./balances.ts";
import type { ChainGatewayConfig } from "./config.ts";
import type { DepositAddresses } from "./deposit-addresses.ts";

// Solvency, measured: per currency, what users are owed on the ledger against what the hot
// wallet and the deposit addresses (swept or not) hold on-chain right now. The native coin
// counts its wrapped token too, as deposits of either credit it. See exchange/README.md.

export interface ReserveRow {
  readonly currency: string;
  /** Users' available + locked: what the exchange owes. */
  readonly owed: bigint;
  /** Commissions earned and still in custody (the exchange's own). */
  readonly fees: bigint;
  readonly hotWallet: bigint;
  /** Held by deposit addresses not swept yet. */
  readonly depositAddresses: bigint;
  readonly onChain: bigint;
  /** onChain - owed - fees: settled fee holds, withdrawals debited and not yet mined, top-ups, less gas paid. */
  readonly surplus: bigint;
}

/** Reads at most this many balances at once (one JSON-RPC batch each). */
const CONCURRENCY = 25;

async function mapBounded<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
  return out;
}

export async function measureReserves(args: {
  readonly exchange: Exchange;
  readonly client: PublicClient;
  readonly config: ChainGatewayConfig;
  readonly addresses: DepositAddresses;
}): Promise<ReserveRow[]> {
  const { exchange, client, config, addresses } = args;
  const books = new Map<string, CurrencyReconciliation>((await exchange.reconcile()).map((r) => [r.currency, r]));
  const forwarders = [...addresses.entries()].map(([address]) => address);
  const wrapped = (config.deployment.contracts.WrappedNative as Address).toLowerCase() as Address;
  // Every asset's balance of an address in one read set (the wrapped native token is among them).
  const tokens = [...depositTokens(exchange.reference, config.deployment).keys()];
  const amountOf = (balances: Balances, asset: ChainAsset) =>
    asset.kind === "native"
      ? balances.native + (balances.tokens.get(wrapped) ?? 0n)
      : (balances.tokens.get(asset.address) ?? 0n);
  const hot = await balancesOf(client, config.hotWallet.address, tokens);
  const atForwarders = await mapBounded(forwarders, (owner) => balancesOf(client, owner, tokens));
  const rows: ReserveRow[] = [];
  for (const code of exchange.reference.currencies.keys()) {
    const asset = withdrawalAsset(exchange.reference, config.deployment, code);
    if (asset === undefined) continue;
    const hotWallet = amountOf(hot, asset);
    const inForwarders = atForwarders.reduce((sum, balances) => sum + amountOf(balances, asset), 0n);
    const book = books.get(code);
    const owed = (book?.available ?? 0n) + (book?.locked ?? 0n);
    const fees = book?.fees ?? 0n;
    const onChain = hotWallet + inForwarders;
    rows.push({
      currency: code,
      owed,
      fees,
      hotWallet,
      depositAddresses: inForwarders,
      onChain,
      surplus: onChain - owed - fees,
    });
  }
  return rows;
}
