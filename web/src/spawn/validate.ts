import { parseUnits } from "viem";

/**
 * The spawn form's rules, checked before anything is sent: SPEC.md's (name at most 50
 * characters, symbol [A-Z]{3,5}) and the contract's (name at most 50 bytes of UTF-8, supply 1 to
 * 10^12 whole tokens; metadata bounds as the API's spawn write: description 512 bytes, website 256).
 */

export interface SpawnInput {
  name: string;
  symbol: string;
  totalSupply: string;
  poolSide: "STABLE" | "WRAPPED_NATIVE";
  description: string;
  logoUri: string;
  website: string;
}

export type SpawnErrors = Partial<Record<keyof SpawnInput, string>>;

const bytes = (text: string) => new TextEncoder().encode(text).length;
export const MAX_SUPPLY_WHOLE = 10n ** 12n;

export function validateSpawn(input: SpawnInput): { errors: SpawnErrors; totalSupplyWei: bigint | null } {
  const errors: SpawnErrors = {};
  const name = input.name.trim();
  if (name.length === 0) errors.name = "Give the token a name";
  else if ([...name].length > 50) errors.name = "At most 50 characters";
  else if (bytes(name) > 50) errors.name = "At most 50 bytes (accented letters and emoji count more than one)";
  if (!/^[A-Z]{3,5}$/.test(input.symbol)) errors.symbol = "3 to 5 capital letters A-Z";
  let totalSupplyWei: bigint | null = null;
  const supply = input.totalSupply.trim().replace(/[,_ ]/g, "");
  if (!/^\d+$/.test(supply)) errors.totalSupply = "A whole number of tokens";
  else if (BigInt(supply) < 1n || BigInt(supply) > MAX_SUPPLY_WHOLE)
    errors.totalSupply = "From 1 to 1,000,000,000,000 tokens";
  else totalSupplyWei = parseUnits(supply, 18);
  if (bytes(input.description) > 512) errors.description = "At most 512 bytes";
  if (input.website && !/^https?:\/\/\S+$/.test(input.website)) errors.website = "An http(s) address";
  else if (bytes(input.website) > 256) errors.website = "At most 256 bytes";
  if (input.logoUri && !/^(https?|ipfs):\/\/\S+$/.test(input.logoUri)) errors.logoUri = "An http(s) or ipfs address";
  return { errors, totalSupplyWei: Object.keys(errors).length === 0 ? totalSupplyWei : null };
}
