import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useSessionApi } from "../account/session.ts";
import type { Order } from "../account/types.ts";
import { Empty, ErrorState, Loading, QueryState } from "../components/states.tsx";
import { RelativeTime } from "../components/time.tsx";
import { formatAmount } from "../lib/format.ts";
import { useOrders } from "./orders.ts";

/** The user's closed orders on the pair, newest first; an order's fills on demand. */
export function OrderHistory({ pair, userId, live }: { pair: string; userId: string; live: boolean }) {
  const orders = useOrders(userId, pair, "history", live);
  const [shown, setShown] = useState<string | null>(null);
  return (
    <section aria-labelledby="order-history-heading">
      <h2 id="order-history-heading">Order history</h2>
      <QueryState query={orders} loading="Loading your order history…">
        {(page) =>
          page.items.length === 0 ? (
            <Empty>No closed order on {pair.replace("_", "/")} yet.</Empty>
          ) : (
            <div className="table-wrap">
              <table aria-label="Order history">
                <thead>
                  <tr>
                    <th scope="col">Placed</th>
                    <th scope="col">Side</th>
                    <th scope="col">Type</th>
                    <th scope="col" className="num">
                      Price
                    </th>
                    <th scope="col" className="num">
                      Amount
                    </th>
                    <th scope="col" className="num">
                      Filled
                    </th>
                    <th scope="col">Status</th>
                    <th scope="col">
                      <span className="visually-hidden">Fills</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {page.items.map((o) => (
                    <OrderRow
                      key={o.id}
                      order={o}
                      open={shown === o.id}
                      onToggle={() => setShown(shown === o.id ? null : o.id)}
                    />
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

function OrderRow({ order, open, onToggle }: { order: Order; open: boolean; onToggle: () => void }) {
  const filled = order.filledAmount !== "0";
  return (
    <>
      <tr>
        <td>
          <RelativeTime time={Math.floor(Date.parse(order.createdAt) / 1000)} clock="wall" />
        </td>
        <td className={order.isBid ? "buy-text" : "sell-text"}>{order.isBid ? "buy" : "sell"}</td>
        <td>{order.type}</td>
        <td className="num">{order.price ?? "—"}</td>
        <td className="num">{order.amount}</td>
        <td className="num">{formatAmount(order.filledAmount, 18)}</td>
        <td title={order.reason ?? undefined}>
          {order.status}
          {order.reason ? ` (${order.reason})` : ""}
        </td>
        <td>
          {filled && (
            <button type="button" className="small" aria-expanded={open} onClick={onToggle}>
              {open ? "Hide fills" : "Fills"}
            </button>
          )}
        </td>
      </tr>
      {open && (
        <tr>
          <td colSpan={8}>
            <Fills id={order.id} />
          </td>
        </tr>
      )}
    </>
  );
}

function Fills({ id }: { id: string }) {
  const api = useSessionApi();
  const order = useQuery({ queryKey: ["exchange-order", id], queryFn: () => api.get<Order>(`/api/orders/${id}`) });
  if (order.error) return <ErrorState error={order.error} />;
  if (!order.data) return <Loading label="Loading fills…" />;
  const fills = order.data.fills ?? [];
  if (fills.length === 0) return <Empty>No fill.</Empty>;
  return (
    <table aria-label={`Fills of order ${id}`}>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col" className="num">
            Price
          </th>
          <th scope="col" className="num">
            Amount
          </th>
          <th scope="col">Role</th>
          <th scope="col" className="num">
            Fee
          </th>
        </tr>
      </thead>
      <tbody>
        {fills.map((f) => (
          <tr key={f.dealId}>
            <td>
              <RelativeTime time={Math.floor(Date.parse(f.dealDateUtc) / 1000)} clock="wall" />
            </td>
            <td className="num">{f.price}</td>
            <td className="num">{f.amount}</td>
            <td>{f.isMaker ? "maker" : "taker"}</td>
            <td className="num">
              {formatAmount(f.fee, 18)} {f.feeCurrencyCode}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
