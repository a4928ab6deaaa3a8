import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useSessionApi } from "../account/session.ts";
import type { Order } from "../account/types.ts";
import { type Column, DataTable } from "../components/DataTable.tsx";
import { ErrorState, QueryState } from "../components/states.tsx";
import { RelativeTime } from "../components/time.tsx";
import { formatAmount } from "../lib/format.ts";
import { sideColour, useOrders } from "./orders.ts";

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
  const columns: readonly Column<Order>[] = [
    { header: "Placed", cell: (o) => <RelativeTime time={Math.floor(Date.parse(o.createdAt) / 1000)} clock="wall" /> },
    { header: "Side", cell: (o) => (o.isBid ? "buy" : "sell"), cellProps: sideColour },
    { header: "Price", numeric: true, cell: (o) => o.price ?? "market" },
    { header: "Amount", numeric: true, cell: (o) => o.amount },
    { header: "Filled", numeric: true, cell: (o) => formatAmount(o.filledAmount, 18) },
    { header: "Options", cell: (o) => `${o.timeInForce}${o.postOnly ? " · post-only" : ""}` },
    {
      header: "Actions",
      hideHeader: true,
      cell: (o) => (
        <button
          type="button"
          className="small"
          aria-label={`Cancel order ${o.id}`}
          disabled={cancel.isPending}
          onClick={() => cancel.mutate(o.id)}
        >
          Cancel
        </button>
      ),
    },
  ];
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
        {(page) => (
          <DataTable
            label="Open orders"
            columns={columns}
            rows={page.items}
            rowKey={(o) => o.id}
            empty={`No open order on ${pair.replace("_", "/")}.`}
          />
        )}
      </QueryState>
    </section>
  );
}
