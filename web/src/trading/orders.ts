import { useQuery } from "@tanstack/react-query";
import { useSessionApi } from "../account/session.ts";
import type { Order, Page } from "../account/types.ts";

/**
 * The signed-in user's orders on a pair. The user stream over /ws needs an API key's LOGIN (the
 * session cookie does not ride on the upgrade: it is scoped to /api), so the trading screen polls
 * the REST routes every 2 s instead.
 */
export const ORDERS_POLL_MS = 2_000;

export const ordersKey = (userId: string, pair: string, scope: "open" | "history") =>
  ["exchange-orders", userId, pair, scope] as const;

export function useOrders(userId: string, pair: string, scope: "open" | "history") {
  const api = useSessionApi();
  return useQuery({
    queryKey: ordersKey(userId, pair, scope),
    queryFn: () => api.get<Page<Order>>("/api/orders", { currencyPairCode: pair, status: scope, pageSize: 50 }),
    refetchInterval: ORDERS_POLL_MS,
  });
}
