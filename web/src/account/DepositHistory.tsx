import { useQuery } from "@tanstack/react-query";
import { Empty, QueryState } from "../components/states.tsx";
import { RelativeTime } from "../components/time.tsx";
import { formatAmount } from "../lib/format.ts";
import { useSessionApi } from "./session.ts";
import { TxHash } from "./TxHash.tsx";
import type { Deposit, Page } from "./types.ts";

/** "1/2" while a deposit waits for its confirmations; "credited" once it is. */
export function confirmationText(deposit: Deposit): string {
  if (deposit.status === "credited" || deposit.status === undefined) return "credited";
  const required = deposit.requiredConfirmations;
  const seen = deposit.confirmations ?? 0;
  return required == null ? `pending (${seen})` : `pending ${Math.min(seen, required)}/${required}`;
}

/** The account's deposits, newest first, refreshed while any is pending. */
export function DepositHistory({ userId }: { userId: string }) {
  const api = useSessionApi();
  const deposits = useQuery({
    queryKey: ["exchange-deposits", userId],
    queryFn: () => api.get<Page<Deposit>>("/api/deposits", { pageSize: 20 }),
    refetchInterval: (query) => (query.state.data?.items.some((d) => d.status === "pending") ? 2_000 : 10_000),
  });
  return (
    <>
      <h3>Deposit history</h3>
      <QueryState query={deposits} loading="Loading your deposits…">
        {(page) =>
          page.items.length === 0 ? (
            <Empty>No deposit yet.</Empty>
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
                      Credited
                    </th>
                    <th scope="col">Status</th>
                    <th scope="col">Transaction</th>
                  </tr>
                </thead>
                <tbody>
                  {page.items.map((d) => (
                    <tr key={d.id}>
                      <td>
                        <RelativeTime time={Math.floor(Date.parse(d.createdAt) / 1000)} clock="wall" />
                      </td>
                      <td>{d.currencyCode}</td>
                      <td className="num">{formatAmount(d.amount, 18)}</td>
                      <td className="num">{formatAmount(d.fee, 18)}</td>
                      <td className="num">{formatAmount(d.credited, 18)}</td>
                      <td>{confirmationText(d)}</td>
                      <td>
                        <TxHash hash={d.txHash} />
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
