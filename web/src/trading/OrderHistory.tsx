import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useSessionApi } from "../account/session.ts";
import type { Fill, Order } from "../account/types.ts";
import { type Column, DataTable } from "../components/DataTable.tsx";
import { ErrorState, Loading, QueryState } from "../components/states.tsx";
import { RelativeTime } from "../components/time.tsx";
import { formatAmount } from "../lib/format.ts";
import { sideColour, useOrders } from "./orders.ts";

const COLUMNS: readonly Column<Order>[] = [
  { header: "Placed", cell: (o) => <RelativeTime time={Math.floor(Date.parse(o.createdAt) / 1000)} clock="wall" /> },
  { header: "Side", cell: (o) => (o.isBid ? "buy" : "sell"), cellProps: sideColour },
  { header: "Type", cell: (o) => o.type },
  { header: "Price", numeric: true, cell: (o) => o.price ?? "—" },
  { header: "Amount", numeric: true, cell: (o) => o.amount },
  { header: "Filled", numeric: true, cell: (o) => formatAmount(o.filledAmount, 18) },
  {
    header: "Status",
    cell: (o) => `${o.status}${o.reason ? ` (${o.reason})` : ""}`,
    cellProps: (o) => ({ title: o.reason ?? undefined }),
  },
];

const FILL_COLUMNS: readonly Column<Fill>[] = [
  { header: "When", cell: (f) => <RelativeTime time={Math.floor(Date.parse(f.dealDateUtc) / 1000)} clock="wall" /> },
  { header: "Price", numeric: true, cell: (f) => f.price },
  { header: "Amount", numeric: true, cell: (f) => f.amount },
  { header: "Role", cell: (f) => (f.isMaker ? "maker" : "taker") },
  { header: "Fee", numeric: true, cell: (f) => `${formatAmount(f.fee, 18)} ${f.feeCurrencyCode}` },
];

/** The user's closed orders on the pair, newest first; an order's fills on demand. */
export function OrderHistory({ pair, userId, live }: { pair: string; userId: string; live: boolean }) {
  const orders = useOrders(userId, pair, "history", live);
  const [shown, setShown] = useState<string | null>(null);
  const columns: readonly Column<Order>[] = [
    ...COLUMNS,
    {
      header: "Fills",
      hideHeader: true,
      cell: (o) =>
        o.filledAmount !== "0" && (
          <button
            type="button"
            className="small"
            aria-expanded={shown === o.id}
            onClick={() => setShown(shown === o.id ? null : o.id)}
          >
            {shown === o.id ? "Hide fills" : "Fills"}
          </button>
        ),
    },
  ];
  return (
    <section aria-labelledby="order-history-heading">
      <h2 id="order-history-heading">Order history</h2>
      <QueryState query={orders} loading="Loading your order history…">
        {(page) => (
          <DataTable
            label="Order history"
            columns={columns}
            rows={page.items}
            rowKey={(o) => o.id}
            empty={`No closed order on ${pair.replace("_", "/")} yet.`}
            detail={(o) => shown === o.id && <Fills id={o.id} />}
          />
        )}
      </QueryState>
    </section>
  );
}

function Fills({ id }: { id: string }) {
  const api = useSessionApi();
  const order = useQuery({ queryKey: ["exchange-order", id], queryFn: () => api.get<Order>(`/api/orders/${id}`) });
  if (order.error) return <ErrorState error={order.error} />;
  if (!order.data) return <Loading label="Loading fills…" />;
  return (
    <DataTable
      label={`Fills of order ${id}`}
      columns={FILL_COLUMNS}
      rows={order.data.fills ?? []}
      rowKey={(f) => f.dealId}
      empty="No fill."
    />
  );
}
