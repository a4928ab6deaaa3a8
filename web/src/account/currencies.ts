import { useQuery } from "@tanstack/react-query";
import { usePlatform } from "../context.ts";
import type { AssetInfo } from "./types.ts";

/** The exchange's currency codes (GET /api/currencies), in its order. */
export function useCurrencyCodes() {
  const { api } = usePlatform();
  return useQuery({ queryKey: ["currencies"], queryFn: () => api.exchange("/api/currencies"), staleTime: 60_000 });
}

/**
 * What the gateway allows per currency: deposits and withdrawals on or off, min_withdraw and
 * max_withdraw (the aggregator's /asset map, keyed by code).
 */
export function useAssets() {
  const { api } = usePlatform();
  return useQuery({
    queryKey: ["assets"],
    queryFn: async () =>
      (await api.exchange("/api/marketdata/getaggregator/asset")) as unknown as Record<string, AssetInfo>,
    staleTime: 60_000,
  });
}

/**
 * Decimals an amount of the currency may have. The public API does not say a currency's
 * decimals; an /asset entry that does is believed, else 18 (the chain's most), and the exchange
 * refuses anything finer with its own code.
 */
export const decimalsOf = (asset: AssetInfo | undefined) => asset?.decimals ?? 18;
