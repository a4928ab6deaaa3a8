import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useSessionApi } from "../account/session.ts";
import type { Order } from "../account/types.ts";
import { Empty, ErrorState, QueryState } from "../components/states.tsx";
import { RelativeTime } from "../components/time.tsx";
import { formatAmount } from "../lib/format.ts";
import { useOrders } from "./orders.ts";

/** The user's open orders on the pair, each with a cancel button, and cancel-all. */
export function OpenOrders({
  pair,
  csrf,
  userId,
  live,
}: {
  pair: string;
  csrf: string;
  userId: string;
  live: boolean;
}) {
  const api = useSessionApi();
  const queryClient = useQueryClient();
  const orders = useOrders(userId, pair, "open", live);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ["exchange-orders", userId] });
  const cancel = useMutation({
    mutationFn: (id: string) => api.write<Order>("DELETE", `/api/orders/${id}`, csrf),
    onSettled: refresh,
  });
  const cancelAll = useMutation({
    mutationFn: () => api.write("DELETE", "/api/orders", csrf, undefined, { currencyPairCode: pair }),
    onSettled: refresh,
  });
  return (
    <section aria-labelledby="open-orders-heading">
      <div className="row">
        <h2 id="open-orders-heading">Open orders</h2>
        <button
          type="button"
          className="small"
          disabled={cancelAll.isPending || (orders.data?.items.length ?? 0) === 0}
          onClick={() => cancelAll.mutate()}
        >
          Cancel all
        </button>
        <span className="muted">{live ? "live" : "refreshed every 2 s"}</span>
      </div>
      {cancel.error && <ErrorState error={cancel.error} />}
      {cancelAll.error && <ErrorState error={cancelAll.error} />}
      <QueryState query={orders} loading="Loading your open orders…">
        {(page) =>
          page.items.length === 0 ? (
            <Empty>No open order on {pair.replace("_", "/")}.</Empty>
          ) : (
            <div className="table-wrap">
              <table aria-label="Open orders">
                <thead>
                  <tr>
                    <th scope="col">Placed</th>
                    <th scope="col">Side</th>
                    <th scope="col" className="num">
                      Price
                    </th>
                    <th scope="col" className="num">
                      Amount
                    </th>
                    <th scope="col" className="num">
                      Filled
                    </th>
                    <th scope="col">Options</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {page.items.map((o) => (
                    <tr key={o.id}>
                      <td>
                        <RelativeTime time={Math.floor(Date.parse(o.createdAt) / 1000)} clock="wall" />
                      </td>
                      <td className={o.isBid ? "buy-text" : "sell-text"}>{o.isBid ? "buy" : "sell"}</td>
                      <td className="num">{o.price ?? "market"}</td>
                      <td className="num">{o.amount}</td>
                      <td className="num">{formatAmount(o.filledAmount, 18)}</td>
                      <td>
                        {o.timeInForce}
                        {o.postOnly ? " · post-only" : ""}
                      </td>
                      <td>
                        <button
                          type="button"
                          className="small"
                          aria-label={`Cancel order ${o.id}`}
                          disabled={cancel.isPending}
                          onClick={() => cancel.mutate(o.id)}
                        >
                          Cancel
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryState>
    </section>
  );
}
