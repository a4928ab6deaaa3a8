import { type Address, concat, getContractAddress, type Hex } from "viem";

/**
 * Deposit addresses computed off-chain, without an RPC call: what `DepositForwarderFactory`'s
 * `depositAddress(salt)` returns, i.e. OpenZeppelin `Clones.predictDeterministicAddress`. The
 * address is the CREATE2 address, from the factory, of the EIP-1167 minimal proxy's creation code
 * for the forwarder implementation (`DepositForwarder` in deployments/<chainId>.json). It does not
 * depend on the hot wallet, which the admin may rotate.
 */

/** EIP-1167 creation code of a minimal proxy to `implementation` (OpenZeppelin `Clones`). */
export function forwarderInitCode(implementation: Address): Hex {
  return concat(["0x3d602d80600a3d3981f3363d3d373d3d3d363d73", implementation, "0x5af43d82803e903d91602b57fd5bf3"]);
}

/** The deposit address of `salt` (a 32-byte hex the exchange derives per user, e.g. keccak256 of its id). */
export function depositAddress(factory: Address, implementation: Address, salt: Hex): Address {
  return getContractAddress({ opcode: "CREATE2", from: factory, salt, bytecode: forwarderInitCode(implementation) });
}
