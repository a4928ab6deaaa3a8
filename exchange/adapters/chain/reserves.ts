import { type Address, erc20Abi, type PublicClient } from "viem";
import type { CurrencyReconciliation, Exchange } from "../../application/index.ts";
import { withdrawalAsset } from "./assets.ts";
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
  const hot = config.hotWallet.address;
  const wrapped = config.deployment.contracts.WrappedNative as Address;
  const balanceOf = (token: Address, owner: Address) =>
    client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [owner] });
  const holdings = async (owner: Address, asset: { kind: "native" } | { kind: "erc20"; address: Address }) =>
    asset.kind === "native"
      ? (await client.getBalance({ address: owner })) + (await balanceOf(wrapped, owner))
      : balanceOf(asset.address, owner);
  const rows: ReserveRow[] = [];
  for (const code of exchange.reference.currencies.keys()) {
    const asset = withdrawalAsset(exchange.reference, config.deployment, code);
    if (asset === undefined) continue;
    const hotWallet = await holdings(hot, asset);
    const atForwarders = (await mapBounded(forwarders, (owner) => holdings(owner, asset))).reduce(
      (sum, v) => sum + v,
      0n,
    );
    const book = books.get(code);
    const owed = (book?.available ?? 0n) + (book?.locked ?? 0n);
    const fees = book?.fees ?? 0n;
    const onChain = hotWallet + atForwarders;
    rows.push({
      currency: code,
      owed,
      fees,
      hotWallet,
      depositAddresses: atForwarders,
      onChain,
      surplus: onChain - owed - fees,
    });
  }
  return rows;
}
