import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "wouter";
import { QueryState } from "../components/states.tsx";
import { LiveBadge } from "../components/live.tsx";
import { RelativeTime } from "../components/time.tsx";
import { SuspensionEnd } from "../components/suspension.tsx";
import { usePlatform } from "../context.ts";
import { useEventStream } from "../lib/event-stream.ts";

/** A worker: status (suspended included), config, stats and its recent actions, refreshed live as actions arrive. */
export function WorkerPanel({
  tokenId,
  agentNftId,
  heading = "h2",
}: {
  tokenId: string;
  agentNftId?: number;
  heading?: "h1" | "h2";
}) {
  const { api, config } = usePlatform();
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: ["worker", tokenId],
    queryFn: () => api.eco("/api/agents/workers/{tokenId}", { path: { tokenId } }),
  });
  const nftId = agentNftId ?? query.data?.worker.agentNftId;
  const streamUrl =
    nftId === undefined ? null : `${config.ecosystemApiUrl}/api/agents/action-logs/stream?tokenId=${nftId}`;
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ["worker", tokenId] });
  const status = useEventStream(streamUrl, { action: refresh }, refresh);
  const Heading = heading;
  return (
    <section aria-labelledby="worker-heading">
      <div className="row">
        <Heading id="worker-heading">Worker{query.data ? ` #${query.data.worker.id}` : ""}</Heading>
        <LiveBadge status={status} />
      </div>
      <QueryState query={query}>
        {(w) => (
          <>
            <dl className="stats">
              <div>
                <dt>Status</dt>
                <dd>
                  <span className={`badge ${w.worker.status}`}>{w.worker.status}</span>
                  <SuspensionEnd until={w.worker.suspendedUntil} />
                </dd>
              </div>
              <div>
                <dt>Slippage cap</dt>
                <dd>{w.config.slippageCapBps} bps</dd>
              </div>
              <div>
                <dt>MEV protection</dt>
                <dd>{w.config.mevProtection}</dd>
              </div>
              <div>
                <dt>Last active</dt>
                <dd>
                  <RelativeTime time={w.worker.lastActiveAt} />
                </dd>
              </div>
              <div>
                <dt>Actions</dt>
                <dd>{w.stats.totalActions}</dd>
              </div>
              <div>
                <dt>Last override</dt>
                <dd>
                  {w.stats.lastOverrideAt ? (
                    <>
                      <RelativeTime time={w.stats.lastOverrideAt} /> by {w.stats.overridingTier}
                    </>
                  ) : (
                    "none"
                  )}
                </dd>
              </div>
              <div>
                <dt>Proposals</dt>
                <dd>
                  {w.votes.activeProposals} open, {w.votes.recentlyClosed} closed (7 d)
                </dd>
              </div>
            </dl>
            <p className="muted">
              Signals: {w.config.signalSubscriptions.length ? w.config.signalSubscriptions.join(", ") : "none"}.
              Deployed <RelativeTime time={w.worker.deployedAt} />.{" "}
              <Link href={`/tokens/${w.worker.tokenAddress}`}>Token page</Link> ·{" "}
              <Link href={`/agents/workers/${w.worker.agentNftId}`}>Worker page</Link>
            </p>
            <h3>Recent actions</h3>
            {w.recentActions.length === 0 ? (
              <p className="muted">No action yet.</p>
            ) : (
              <div className="table-wrap">
                <table>
                  <caption className="muted">The worker's newest actions on its token</caption>
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Action</th>
                      <th scope="col">Reason</th>
                      <th scope="col">Details</th>
                      <th scope="col">Transaction</th>
                    </tr>
                  </thead>
                  <tbody>
                    {w.recentActions.map((a) => (
                      <tr key={`${a.txHash}-${a.actionType}-${a.blockNumber}`}>
                        <td>
                          <RelativeTime time={a.blockTimestamp} />
                        </td>
                        <td>{a.actionType}</td>
                        <td>{a.reasonCode}</td>
                        <td>
                          <code>{a.params ? JSON.stringify(a.params).slice(0, 80) : "—"}</code>
                        </td>
                        <td>
                          <code title={a.txHash}>{a.txHash.slice(0, 10)}…</code>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </>
        )}
      </QueryState>
    </section>
  );
}
