import type { Address } from "viem";
import type { Deployment } from "../../../lib/deployments.ts";
import type { ReferenceData } from "../../application/index.ts";

// Which on-chain asset each currency is, on the chain the gateway is joined to. The stable coin
// (USDT) is the deployment's stable token; the native coin's currency (adapter code EVM, ETH) is
// the chain's native coin, and deposits of its wrapped token (WETH) are credited to it too, since
// a wallet holds either; a listed agent token is its contract. Everything else has no asset here
// (deposits and withdrawals of it are off: currencySettings tells the truth about that).

export const STABLE_CURRENCY = "USDT";
/** The currency's adapter code that means the chain's native coin. */
export const NATIVE_ADAPTER = "EVM";

export type ChainAsset = { readonly kind: "native" } | { readonly kind: "erc20"; readonly address: Address };

const lower = (address: string) => address.toLowerCase() as Address;

/** The asset a withdrawal of `code` is sent as; undefined when the currency has none on this chain. */
export function withdrawalAsset(
  reference: ReferenceData,
  deployment: Deployment,
  code: string,
): ChainAsset | undefined {
  const currency = reference.currencies.get(code);
  if (currency === undefined) return undefined;
  if (currency.row.adapterCode === NATIVE_ADAPTER) return { kind: "native" };
  if (code === STABLE_CURRENCY) return { kind: "erc20", address: lower(deployment.contracts.MockStableToken) };
  const contract = currency.row.contractAddress;
  return contract ? { kind: "erc20", address: lower(contract) } : undefined;
}

/** depositTokens' answers, per reference data object (a reload replaces it) and its currencies' version. */
const tokensCache = new WeakMap<
  ReferenceData,
  { readonly version: number; readonly deployment: Deployment; readonly tokens: ReadonlyMap<Address, string> }
>();

/**
 * Token contracts (lower-case) deposits are watched on, each with the currency it credits. Asked
 * for on every credit and read of the chain: built again only when the currencies changed.
 */
export function depositTokens(reference: ReferenceData, deployment: Deployment): ReadonlyMap<Address, string> {
  const cached = tokensCache.get(reference);
  if (cached?.version === reference.currenciesVersion && cached.deployment === deployment) return cached.tokens;
  const tokens = new Map<Address, string>();
  for (const { row } of reference.currencies.values()) {
    const asset = withdrawalAsset(reference, deployment, row.code);
    if (asset?.kind === "erc20") tokens.set(asset.address, row.code);
    if (asset?.kind === "native") tokens.set(lower(deployment.contracts.WrappedNative), row.code);
  }
  tokensCache.set(reference, { version: reference.currenciesVersion, deployment, tokens });
  return tokens;
}

/** The currency native-coin deposits credit, if any. */
export function nativeCurrency(reference: ReferenceData): string | undefined {
  for (const { row } of reference.currencies.values()) if (row.adapterCode === NATIVE_ADAPTER) return row.code;
  return undefined;
}

/** Whether the gateway can move `code` on this chain (deposit watched, withdrawal sendable). */
export function hasChainAsset(reference: ReferenceData, deployment: Deployment, code: string): boolean {
  return withdrawalAsset(reference, deployment, code) !== undefined;
}
