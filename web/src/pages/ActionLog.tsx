import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import type { EcosystemData } from "../api/clients.ts";
import { LiveBadge } from "../components/live.tsx";
import { Empty, QueryState } from "../components/states.tsx";
import { RelativeTime } from "../components/time.tsx";
import { usePlatform } from "../context.ts";
import { useEventStream } from "../lib/event-stream.ts";

type Page = EcosystemData<"/api/agents/action-logs">;
type Entry = Page["items"][number];
const PAGE_SIZE = 25;
const WINDOWS = [
  ["", "Any time"],
  ["3600", "Last hour"],
  ["86400", "Last 24 hours"],
  ["604800", "Last 7 days"],
] as const;

/** `/agents/actions`: SPEC.md's filters (tier, type, token, time); new entries arrive live on page 1. */
export default function ActionLogPage() {
  const { api, config } = usePlatform();
  const queryClient = useQueryClient();
  const [tier, setTier] = useState<"" | "queen" | "scout" | "worker">("");
  const [actionType, setActionType] = useState("");
  const [tokenId, setTokenId] = useState("");
  const [timeWindow, setTimeWindow] = useState<(typeof WINDOWS)[number][0]>("");
  const [page, setPage] = useState(1);
  const typeOk = actionType === "" || /^[a-z0-9_]{1,32}$/.test(actionType);
  const tokenOk = tokenId === "" || /^\d{1,9}$/.test(tokenId);
  const [since] = useState(() => Math.floor(Date.now() / 1000));
  const filters = {
    ...(tier ? { sourceTier: tier } : {}),
    ...(actionType && typeOk ? { actionType } : {}),
    ...(tokenId && tokenOk ? { tokenId: Number(tokenId) } : {}),
    ...(timeWindow ? { since: since - Number(timeWindow) } : {}),
  };
  const key = ["action-logs", filters, page];
  const log = useQuery({
    queryKey: key,
    queryFn: () => api.eco("/api/agents/action-logs", { query: { ...filters, page, pageSize: PAGE_SIZE } }),
    placeholderData: keepPreviousData,
  });

  const streamUrl = new URL("/api/agents/action-logs/stream", config.ecosystemApiUrl);
  for (const [k, v] of Object.entries(filters)) streamUrl.searchParams.set(k, String(v));
  const status = useEventStream(
    streamUrl.toString(),
    {
      action: (data) => {
        const entry = data as Entry;
        if (page !== 1) {
          void queryClient.invalidateQueries({ queryKey: ["action-logs"] });
          return;
        }
        queryClient.setQueryData<Page>(key, (old) =>
          old && !old.items.some((e) => e.entryId === entry.entryId)
            ? { ...old, items: [entry, ...old.items].slice(0, PAGE_SIZE), totalItems: old.totalItems + 1 }
            : old,
        );
      },
    },
    () => void queryClient.invalidateQueries({ queryKey: ["action-logs"] }),
  );
  const totalPages = log.data ? Math.max(1, Math.ceil(log.data.totalItems / PAGE_SIZE)) : 1;
  const reset = () => setPage(1);

  return (
    <>
      <h1>
        Action log <LiveBadge status={status} />
      </h1>
      <div className="toolbar">
        <label>
          Tier
          <select
            value={tier}
            onChange={(e) => {
              setTier(e.target.value as typeof tier);
              reset();
            }}
          >
            <option value="">Every tier</option>
            <option value="queen">Queen</option>
            <option value="scout">Scout</option>
            <option value="worker">Worker</option>
          </select>
        </label>
        <label>
          Action type
          <input
            value={actionType}
            placeholder="e.g. override"
            onChange={(e) => {
              setActionType(e.target.value.trim());
              reset();
            }}
            aria-invalid={!typeOk}
          />
        </label>
        <label>
          Token (NFT id)
          <input
            inputMode="numeric"
            value={tokenId}
            placeholder="e.g. 4"
            onChange={(e) => {
              setTokenId(e.target.value.trim());
              reset();
            }}
            aria-invalid={!tokenOk}
          />
        </label>
        <label>
          Time
          <select
            value={timeWindow}
            onChange={(e) => {
              setTimeWindow(e.target.value as typeof timeWindow);
              reset();
            }}
          >
            {WINDOWS.map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        </label>
      </div>
      {!typeOk && <p className="error-text">An action type is lower-case letters, digits and _ (at most 32).</p>}
      {!tokenOk && <p className="error-text">A token is its registry NFT id, a whole number.</p>}
      <QueryState query={log} loading="Loading the action log…">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>No action matches these filters yet. New ones appear here as agents act.</Empty>
          ) : (
            <>
              <div className="table-wrap">
                <table aria-label="Action log entries">
                  <thead>
                    <tr>
                      <th scope="col">Entry</th>
                      <th scope="col">When</th>
                      <th scope="col">Agent</th>
                      <th scope="col">Action</th>
                      <th scope="col">Token</th>
                      <th scope="col">Reason</th>
                      <th scope="col">Payload</th>
                      <th scope="col">Transaction</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.items.map((e) => (
                      <tr key={e.entryId}>
                        <td>#{e.entryId}</td>
                        <td>
                          <RelativeTime time={e.timestamp} />
                        </td>
                        <td>
                          <span className="badge">{e.sourceTier}</span> {e.sourceAgentId}
                        </td>
                        <td>{e.actionType}</td>
                        <td>
                          <Link href={`/agents/workers/${e.targetTokenId}`}>NFT {e.targetTokenId}</Link>
                        </td>
                        <td>{e.reasonCode}</td>
                        <td>
                          <code>{e.actionPayload ? JSON.stringify(e.actionPayload).slice(0, 60) : "—"}</code>
                        </td>
                        <td>
                          <code title={e.txHash}>{e.txHash.slice(0, 10)}…</code>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <nav className="row" aria-label="Action log pages">
                <button type="button" className="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                  Newer
                </button>
                <span>
                  Page {page} of {totalPages} ({data.totalItems} entries)
                </span>
                <button
                  type="button"
                  className="secondary"
                  disabled={page >= totalPages}
                  onClick={() => setPage(page + 1)}
                >
                  Older
                </button>
              </nav>
            </>
          )
        }
      </QueryState>
    </>
  );
}
