import type { Address } from "viem";
import type { Exchange } from "../../../application/index.ts";
import { DomainError } from "../../../core/result.ts";
import { hasChainAsset } from "../assets.ts";
import type { ChainGatewayConfig } from "../config.ts";
import { DepositAddresses } from "../deposit-addresses.ts";
import { noChainAsset, parseWithdrawalAddress, refuseOwnAddress } from "./address.ts";

/**
 * The chain gateway's check of a withdrawal request, run before anything is debited: a currency
 * it can send on this chain, an address the chain takes (EIP-55 when mixed-case), and not one of
 * the exchange's own. Deposit addresses are derived off-chain for every user the exchange knows,
 * topped up as users appear (a user created since the last check is added at the next); the map
 * is the chain gateway's, shared with its deposit watcher.
 */
export class WithdrawalGuard {
  private readonly exchange: Exchange;
  private readonly config: ChainGatewayConfig;
  private readonly deposits: DepositAddresses;
  private readonly fixed = new Map<Address, string>();

  constructor(exchange: Exchange, config: ChainGatewayConfig, deposits?: DepositAddresses) {
    this.exchange = exchange;
    this.config = config;
    this.deposits = deposits ?? new DepositAddresses(config.deployment);
    const lower = (a: string) => a.toLowerCase() as Address;
    this.fixed.set(lower(config.hotWallet.address), "the hot wallet");
    const contracts = config.deployment.contracts as Record<string, string | undefined>;
    for (const name of ["DepositForwarderFactory", "DepositForwarder"]) {
      const address = contracts[name];
      if (address) this.fixed.set(lower(address), `the ${name} contract`);
    }
    if (config.deployment.accounts.hotWallet)
      this.fixed.set(lower(config.deployment.accounts.hotWallet), "the hot wallet");
  }

  check(request: { readonly address: string; readonly currency: string }): void {
    if (!hasChainAsset(this.exchange.reference, this.config.deployment, request.currency))
      throw noChainAsset(request.currency);
    const address = parseWithdrawalAddress(request.address);
    refuseOwnAddress(address, (a) => this.ownerOf(a));
  }

  /** The address a stored withdrawal is sent to; undefined when the chain would not take it (a row from before the gateway). */
  addressOf(text: string): Address | undefined {
    try {
      return parseWithdrawalAddress(text);
    } catch (error) {
      if (error instanceof DomainError) return undefined;
      throw error;
    }
  }

  private ownerOf(address: Address): string | undefined {
    const fixed = this.fixed.get(address);
    if (fixed !== undefined) return fixed;
    this.deposits.addUsers(this.exchange);
    return this.deposits.userOf(address) === undefined ? undefined : "a deposit address";
  }
}
