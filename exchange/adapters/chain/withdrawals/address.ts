import { type Address, getAddress } from "viem";
import { DomainError, invalidInput } from "../../../core/result.ts";

// What a withdrawal address must be on an EVM chain, before anything is held: 0x and 40 hex
// digits; when it mixes cases, the EIP-55 checksum it then claims (one mistyped letter in a
// checksummed address is caught, as wallets do); and not one of the exchange's own addresses (the
// hot wallet, the forwarder factory, a user's deposit address): money "withdrawn" there would
// never leave, or would be credited again as a deposit.

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The address, lower-case; INVALID_PARAM naming `address` when it is malformed or fails its checksum. */
export function parseWithdrawalAddress(text: string): Address {
  if (!HEX_ADDRESS.test(text)) throw invalidInput("address", "must be 0x followed by 40 hex digits");
  const digits = text.slice(2);
  const mixed = digits !== digits.toLowerCase() && digits !== digits.toUpperCase();
  if (mixed && getAddress(text) !== text)
    throw invalidInput(
      "address",
      "fails its EIP-55 checksum (a mistyped character?); check it, or send it all lower-case",
    );
  return text.toLowerCase() as Address;
}

/** Refuses one of the exchange's own addresses (`own` answers for a lower-case address). */
export function refuseOwnAddress(address: Address, own: (address: Address) => string | undefined): void {
  const whose = own(address);
  if (whose !== undefined)
    throw invalidInput(
      "address",
      `is the exchange's own address (${whose}); withdraw to an address outside the exchange`,
    );
}

/** WITHDRAWALS_DISABLED for a currency the gateway cannot send on this chain. */
export function noChainAsset(code: string): DomainError {
  return new DomainError(
    "WITHDRAWALS_DISABLED",
    `Withdrawals of ${code} are disabled: it has no asset on the chain the exchange is joined to`,
  );
}
