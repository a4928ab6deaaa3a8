import { useQuery } from "@tanstack/react-query";
import { Empty, QueryState } from "../components/states.tsx";
import { formatAmount } from "../lib/format.ts";
import { useSessionApi } from "./session.ts";
import type { Balance } from "./types.ts";

/** The account's balances, every currency, exact decimals (grouped for reading, never rounded away). */
export function Balances({ userId }: { userId: string }) {
  const api = useSessionApi();
  const balances = useQuery({
    queryKey: ["exchange-balances", userId],
    queryFn: () => api.get<Balance[]>("/api/balances"),
    refetchInterval: 5_000,
  });
  return (
    <section aria-labelledby="balances-heading">
      <h2 id="balances-heading">Balances</h2>
      <QueryState query={balances} loading="Loading your balances…">
        {(rows) =>
          rows.length === 0 ? (
            <Empty>No balance yet: deposit below.</Empty>
          ) : (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Currency</th>
                    <th scope="col" className="num">
                      Available
                    </th>
                    <th scope="col" className="num">
                      Locked
                    </th>
                    <th scope="col" className="num">
                      Total
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((b) => (
                    <tr key={b.currencyCode}>
                      <th scope="row">{b.currencyCode}</th>
                      <td className="num" title={b.available}>
                        {formatAmount(b.available, 18)}
                      </td>
                      <td className="num" title={b.locked}>
                        {formatAmount(b.locked, 18)}
                      </td>
                      <td className="num" title={b.total}>
                        {formatAmount(b.total, 18)}
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
