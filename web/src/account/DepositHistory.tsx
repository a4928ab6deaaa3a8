import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { type Column, DataTable } from "../components/DataTable.tsx";
import { QueryState } from "../components/states.tsx";
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

const COLUMNS: readonly Column<Deposit>[] = [
  { header: "When", cell: (d) => <RelativeTime time={Math.floor(Date.parse(d.createdAt) / 1000)} clock="wall" /> },
  { header: "Currency", cell: (d) => d.currencyCode },
  { header: "Amount", numeric: true, cell: (d) => formatAmount(d.amount, 18) },
  { header: "Fee", numeric: true, cell: (d) => formatAmount(d.fee, 18) },
  { header: "Credited", numeric: true, cell: (d) => formatAmount(d.credited, 18) },
  { header: "Status", cell: confirmationText },
  { header: "Transaction", cell: (d) => <TxHash hash={d.txHash} /> },
];

/** The account's deposits, newest first, refreshed while any is pending. */
export function DepositHistory({ userId }: { userId: string }) {
  const api = useSessionApi();
  const deposits = useQuery({
    queryKey: ["exchange-deposits", userId],
    queryFn: () => api.get<Page<Deposit>>("/api/deposits", { pageSize: 20 }),
    refetchInterval: (query) => (query.state.data?.items.some((d) => d.status === "pending") ? 2_000 : 10_000),
  });
  const heading = useId();
  return (
    <>
      <h3 id={heading}>Deposit history</h3>
      <QueryState query={deposits} loading="Loading your deposits…">
        {(page) => (
          <DataTable
            labelledBy={heading}
            columns={COLUMNS}
            rows={page.items}
            rowKey={(d) => d.id}
            empty="No deposit yet."
          />
        )}
      </QueryState>
    </>
  );
}
