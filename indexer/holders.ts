/** The burn address tokens are sent to for good (spawn fees go there too). */
export const BURN_ADDRESS = "0x000000000000000000000000000000000000dead";

/**
 * Whether an account with a balance counts as a holder of a token: not its pool (launch
 * liquidity is nobody's holding), not the burn address. The zero address never has a balance.
 * `pool` is undefined while the token is not yet known (its spawn's own mints).
 */
export function isHolder(account: `0x${string}`, pool: `0x${string}` | undefined): boolean {
  return account !== BURN_ADDRESS && account !== pool && account !== "0x0000000000000000000000000000000000000000";
}
