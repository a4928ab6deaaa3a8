import { type Address, type Hex, keccak256, stringToBytes } from "viem";
import type { Deployment } from "../../../lib/deployments.ts";
import { depositAddress } from "../../../lib/deposit-address.ts";

// Each user's deposit address on the joined chain: a DepositForwarder clone at a CREATE2 address
// of the factory, from a salt derived from the user's id. Computed off-chain (no RPC), the same
// on every call, and the same for every currency (a forwarder holds any token and the native coin).

/** The CREATE2 salt of a user's forwarder: keccak256 of "deposit:<userId>". */
export const depositSaltOf = (userId: string): Hex => keccak256(stringToBytes(`deposit:${userId}`));

/** Deposit addresses (lower-case) of known users, both ways; grows as users appear. */
export class DepositAddresses {
  private readonly factory: Address;
  private readonly implementation: Address;
  private readonly byUser = new Map<string, Address>();
  private readonly byAddress = new Map<Address, string>();

  constructor(deployment: Deployment) {
    this.factory = deployment.contracts.DepositForwarderFactory as Address;
    this.implementation = deployment.contracts.DepositForwarder as Address;
  }

  /** The user's deposit address (lower-case), remembered for userOf. */
  of(userId: string): Address {
    let address = this.byUser.get(userId);
    if (address === undefined) {
      address = depositAddress(this.factory, this.implementation, depositSaltOf(userId)).toLowerCase() as Address;
      this.byUser.set(userId, address);
      this.byAddress.set(address, userId);
    }
    return address;
  }

  /**
   * Derives the addresses of users created since the last call (two hashes each). The watcher
   * calls it every pass and the withdrawal guard before each check: both read this one map.
   */
  addUsers(users: { readonly userCount: number; userIds(): Iterable<string> }): void {
    if (this.byUser.size < users.userCount) for (const id of users.userIds()) this.of(id);
  }

  /** The user a deposit address belongs to, among those `of` has computed. */
  userOf(address: string): string | undefined {
    return this.byAddress.get(address.toLowerCase() as Address);
  }

  /** Every deposit address computed so far, with its user. */
  entries(): IterableIterator<[Address, string]> {
    return this.byAddress.entries();
  }

  get size(): number {
    return this.byAddress.size;
  }
}
