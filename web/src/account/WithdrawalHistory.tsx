import { useQuery } from "@tanstack/react-query";
import { ShortAddress } from "../components/address.tsx";
import { Empty, QueryState } from "../components/states.tsx";
import { RelativeTime } from "../components/time.tsx";
import { formatAmount } from "../lib/format.ts";
import { useSessionApi } from "./session.ts";
import { TxHash } from "./TxHash.tsx";
import type { Page, Withdrawal } from "./types.ts";

const SETTLED = new Set(["completed", "failed"]);

/** The account's withdrawals, newest first; refreshed every 2 s while one is on its way. */
export function WithdrawalHistory({ userId }: { userId: string }) {
  const api = useSessionApi();
  const withdrawals = useQuery({
    queryKey: ["exchange-withdrawals", userId],
    queryFn: () => api.get<Page<Withdrawal>>("/api/withdrawals", { pageSize: 20 }),
    refetchInterval: (query) => (query.state.data?.items.some((w) => !SETTLED.has(w.status)) ? 2_000 : 10_000),
  });
  return (
    <>
      <h3>Withdrawal history</h3>
      <QueryState query={withdrawals} loading="Loading your withdrawals…">
        {(page) =>
          page.items.length === 0 ? (
            <Empty>No withdrawal yet.</Empty>
          ) : (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Currency</th>
                    <th scope="col" className="num">
                      Amount
                    </th>
                    <th scope="col" className="num">
                      Fee
                    </th>
                    <th scope="col" className="num">
                      Sent
                    </th>
                    <th scope="col">To</th>
                    <th scope="col">Status</th>
                    <th scope="col">Transaction</th>
                  </tr>
                </thead>
                <tbody>
                  {page.items.map((w) => (
                    <tr key={w.id}>
                      <td>
                        <RelativeTime time={Math.floor(Date.parse(w.createdAt) / 1000)} clock="wall" />
                      </td>
                      <td>{w.currencyCode}</td>
                      <td className="num">{formatAmount(w.amount, 18)}</td>
                      <td className="num">{formatAmount(w.fee, 18)}</td>
                      <td className="num">{formatAmount(w.sent, 18)}</td>
                      <td>
                        <ShortAddress address={w.address} />
                      </td>
                      <td className={w.status === "failed" ? "sell-text" : undefined}>{w.status}</td>
                      <td>
                        <TxHash hash={w.txHash} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryState>
    </>
  );
}
