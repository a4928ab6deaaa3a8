import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { ShortAddress } from "../components/address.tsx";
import { type Column, DataTable } from "../components/DataTable.tsx";
import { QueryState } from "../components/states.tsx";
import { RelativeTime } from "../components/time.tsx";
import { formatAmount } from "../lib/format.ts";
import { useSessionApi } from "./session.ts";
import { TxHash } from "./TxHash.tsx";
import type { Page, Withdrawal } from "./types.ts";

const SETTLED = new Set(["completed", "failed"]);

/** What a withdrawal waits for, or why it failed: the reason the status alone does not give. */
export function statusDetail(w: Withdrawal): string | undefined {
  if (w.status === "pending" && w.approvalRequired && !w.approvedAt) return "awaiting an operator's approval";
  if (w.status === "pending") return w.waitingReason;
  if (w.status === "sent" && w.confirmations !== undefined)
    return `${w.confirmations} confirmation${w.confirmations === 1 ? "" : "s"}`;
  if (w.status === "failed") return w.failureReason ?? undefined;
  return undefined;
}

function Status({ withdrawal }: { withdrawal: Withdrawal }) {
  const detail = statusDetail(withdrawal);
  return (
    <>
      {withdrawal.status}
      {detail && <small className="muted status-detail">{detail}</small>}
    </>
  );
}

const COLUMNS: readonly Column<Withdrawal>[] = [
  { header: "When", cell: (w) => <RelativeTime time={Math.floor(Date.parse(w.createdAt) / 1000)} clock="wall" /> },
  { header: "Currency", cell: (w) => w.currencyCode },
  { header: "Amount", numeric: true, cell: (w) => formatAmount(w.amount, 18) },
  { header: "Fee", numeric: true, cell: (w) => formatAmount(w.fee, 18) },
  { header: "Sent", numeric: true, cell: (w) => formatAmount(w.sent, 18) },
  { header: "To", cell: (w) => <ShortAddress address={w.address} /> },
  {
    header: "Status",
    cell: (w) => <Status withdrawal={w} />,
    cellProps: (w) => ({ className: w.status === "failed" ? "sell-text" : undefined }),
  },
  { header: "Transaction", cell: (w) => <TxHash hash={w.txHash} /> },
];

/** The account's withdrawals, newest first; refreshed every 2 s while one is on its way. */
export function WithdrawalHistory({ userId }: { userId: string }) {
  const api = useSessionApi();
  const withdrawals = useQuery({
    queryKey: ["exchange-withdrawals", userId],
    queryFn: () => api.get<Page<Withdrawal>>("/api/withdrawals", { pageSize: 20 }),
    refetchInterval: (query) => (query.state.data?.items.some((w) => !SETTLED.has(w.status)) ? 2_000 : 10_000),
  });
  const heading = useId();
  return (
    <>
      <h3 id={heading}>Withdrawal history</h3>
      <QueryState query={withdrawals} loading="Loading your withdrawals…">
        {(page) => (
          <DataTable
            labelledBy={heading}
            columns={COLUMNS}
            rows={page.items}
            rowKey={(w) => w.id}
            empty="No withdrawal yet."
          />
        )}
      </QueryState>
    </>
  );
}
