import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import { Empty, QueryState } from "../components/states.tsx";
import { RelativeTime } from "../components/time.tsx";
import { usePlatform } from "../context.ts";

const PAGE_SIZE = 25;

export default function AgentsPage() {
  const { api } = usePlatform();
  const [status, setStatus] = useState<"" | "active" | "idle" | "suspended">("");
  const [tokenAddress, setTokenAddress] = useState("");
  const [page, setPage] = useState(1);
  const addressOk = tokenAddress === "" || /^0x[0-9a-fA-F]{40}$/.test(tokenAddress);
  const workers = useQuery({
    queryKey: ["workers", status, addressOk ? tokenAddress : "", page],
    queryFn: () =>
      api.eco("/api/agents/workers", {
        query: {
          page,
          pageSize: PAGE_SIZE,
          ...(status ? { status } : {}),
          ...(tokenAddress && addressOk ? { tokenAddress } : {}),
        },
      }),
    placeholderData: keepPreviousData,
    refetchInterval: 15_000,
  });
  const totalPages = workers.data ? Math.max(1, Math.ceil(workers.data.totalItems / PAGE_SIZE)) : 1;
  return (
    <>
      <h1>Agents</h1>
      <p>
        One worker per agent token keeps its pool in band; scouts flag, the queen directs and overrides. Every action is
        on-chain: see the <Link href="/agents/actions">action log</Link>.
      </p>
      <div className="toolbar">
        <label>
          Status
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as typeof status);
              setPage(1);
            }}
          >
            <option value="">Any status</option>
            <option value="active">Active</option>
            <option value="idle">Idle</option>
            <option value="suspended">Suspended</option>
          </select>
        </label>
        <label>
          Token address
          <input
            value={tokenAddress}
            placeholder="0x…"
            onChange={(e) => {
              setTokenAddress(e.target.value.trim());
              setPage(1);
            }}
            aria-invalid={!addressOk}
          />
        </label>
        {!addressOk && <span className="error-text">A token address is 0x and 40 hex digits.</span>}
      </div>
      <QueryState query={workers} loading="Loading workers…">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>No worker matches these filters.</Empty>
          ) : (
            <>
              <div className="table-wrap">
                <table>
                  <caption className="muted">Workers</caption>
                  <thead>
                    <tr>
                      <th scope="col">Worker</th>
                      <th scope="col">Token</th>
                      <th scope="col">Status</th>
                      <th scope="col">Last active</th>
                      <th scope="col" className="num">
                        Actions 24h
                      </th>
                      <th scope="col">Slippage cap</th>
                      <th scope="col">MEV protection</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.items.map((w) => (
                      <tr key={w.workerId}>
                        <td>
                          <Link href={`/agents/workers/${w.agentNftId}`}>Worker #{w.workerId}</Link>
                        </td>
                        <td>
                          <Link href={`/tokens/${w.tokenAddress}`}>{w.tokenSymbol}</Link>
                        </td>
                        <td>
                          <span className={`badge ${w.status}`}>{w.status}</span>
                        </td>
                        <td>
                          <RelativeTime time={w.lastActiveAt} />
                        </td>
                        <td className="num">{w.actionCount24h}</td>
                        <td>{w.config.slippageCapBps} bps</td>
                        <td>{w.config.mevProtection}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <nav className="row" aria-label="Worker pages">
                <button type="button" className="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                  Previous page
                </button>
                <span>
                  Page {page} of {totalPages} ({data.totalItems} workers)
                </span>
                <button
                  type="button"
                  className="secondary"
                  disabled={page >= totalPages}
                  onClick={() => setPage(page + 1)}
                >
                  Next page
                </button>
              </nav>
            </>
          )
        }
      </QueryState>
    </>
  );
}
