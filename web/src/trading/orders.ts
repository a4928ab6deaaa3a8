import { useQuery } from "@tanstack/react-query";
import { useSessionApi } from "../account/session.ts";
import type { Order, Page } from "../account/types.ts";

/**
 * The signed-in user's orders on a pair: re-read on every user-stream event (user-stream.ts), and
 * polled every 2 s while that stream is not live (every 15 s as a safety net when it is).
 */
export const ORDERS_POLL_MS = 2_000;
export const ORDERS_LIVE_POLL_MS = 15_000;

export const ordersKey = (userId: string, pair: string, scope: "open" | "history") =>
  ["exchange-orders", userId, pair, scope] as const;

export function useOrders(userId: string, pair: string, scope: "open" | "history", live = false) {
  const api = useSessionApi();
  return useQuery({
    queryKey: ordersKey(userId, pair, scope),
    queryFn: () => api.get<Page<Order>>("/api/orders", { currencyPairCode: pair, status: scope, pageSize: 50 }),
    refetchInterval: live ? ORDERS_LIVE_POLL_MS : ORDERS_POLL_MS,
  });
}

/** An order's side column in the user's colours: green for a buy, red for a sell. */
export const sideColour = (order: Pick<Order, "isBid">) => ({ className: order.isBid ? "buy-text" : "sell-text" });
