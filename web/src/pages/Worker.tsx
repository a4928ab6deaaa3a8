import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import { ActionLogTable } from "../agents/ActionLogTable.tsx";
import { useTokenDirectory } from "../agents/directory.ts";
import { actionLogSearch } from "../agents/filters.ts";
import { Pager } from "../components/Pager.tsx";
import { useActionLog } from "../agents/useActionLog.ts";
import { ApiError } from "../api/errors.ts";
import { CopyableAddress } from "../components/address.tsx";
import { LiveBadge } from "../components/live.tsx";
import { Empty, ErrorState, Loading } from "../components/states.tsx";
import { RelativeTime } from "../components/time.tsx";
import { SuspensionEnd } from "../components/suspension.tsx";
import { usePlatform } from "../context.ts";

const ACTIONS_PAGE_SIZE = 20;

const STATUS_MEANING = {
  active: "In the swarm: it acts on its token.",
  idle: "Out of the swarm: it does not act until it is resumed.",
  suspended: "Suspended: an override stopped it; it cannot act until the suspension ends.",
} as const;

/** The worker's actions on its token (its own and the queens' and scouts'), live. */
function WorkerActions({ agentNftId, symbol, onAction }: { agentNftId: number; symbol: string; onAction: () => void }) {
  const [page, setPage] = useState(1);
  const tokens = useTokenDirectory();
  const filters = { token: String(agentNftId), page };
  const log = useActionLog(filters, { pageSize: ACTIONS_PAGE_SIZE, onEntry: onAction });
  return (
    <section aria-labelledby="worker-actions-heading">
      <div className="row">
        <h2 id="worker-actions-heading">Actions on {symbol}</h2>
        <LiveBadge status={log.status} />
        <Link href={`/agents/actions?${actionLogSearch({ token: filters.token, page: 1 })}`}>In the action log</Link>
      </div>
      {log.query.error && !log.query.data ? (
        <ErrorState error={log.query.error} onRetry={() => void log.query.refetch()} />
      ) : log.rows === undefined ? (
        <Loading label="Loading actions…" />
      ) : log.rows.length === 0 ? (
        <Empty>No action on {symbol} yet. New ones will appear here as they happen.</Empty>
      ) : (
        <>
          {log.newSinceRead > 0 && (
            <p role="status">
              {log.newSinceRead} new {log.newSinceRead === 1 ? "action" : "actions"} since this page was read.{" "}
              <button type="button" className="small" onClick={() => setPage(1)}>
                Show the newest
              </button>
            </p>
          )}
          <ActionLogTable
            rows={log.rows}
            tokens={tokens}
            showToken={false}
            caption={`Actions on ${symbol}, newest first`}
          />
          <Pager
            page={page}
            pageSize={ACTIONS_PAGE_SIZE}
            totalItems={log.totalItems}
            noun="actions"
            label="Action pages"
            onPage={setPage}
          />
        </>
      )}
    </section>
  );
}

function WorkerNotFound({ tokenId }: { tokenId: string }) {
  return (
    <>
      <h1>Worker not found</h1>
      <div className="state empty">
        <p>
          No agent token has the address or NFT id <code>{tokenId}</code>, so there is no worker to show. It may not be
          indexed yet if it was spawned a moment ago.
        </p>
        <p>
          See <Link href="/agents">all workers</Link> or the <Link href="/">launchpad</Link>.
        </p>
      </div>
    </>
  );
}

export default function WorkerPage({ tokenId }: { tokenId: string }) {
  const { api } = usePlatform();
  const queryClient = useQueryClient();
  const tokens = useTokenDirectory();
  const query = useQuery({
    queryKey: ["worker", tokenId],
    queryFn: () => api.eco("/api/agents/workers/{tokenId}", { path: { tokenId } }),
  });

  if (query.error && !query.data) {
    // 400 is a tokenId that is neither an address nor an NFT id: as unknown as a 404 to the reader.
    if (query.error instanceof ApiError && (query.error.status === 404 || query.error.status === 400))
      return <WorkerNotFound tokenId={tokenId} />;
    return (
      <>
        <h1>Worker</h1>
        <ErrorState error={query.error} onRetry={() => void query.refetch()} />
      </>
    );
  }
  if (!query.data)
    return (
      <>
        <h1>Worker</h1>
        <Loading label="Loading the worker…" />
      </>
    );

  const { worker, config, stats, votes } = query.data;
  const symbol = tokens.get(worker.agentNftId)?.symbol ?? `token #${worker.agentNftId}`;
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ["worker", tokenId] });
  return (
    <>
      <h1>
        Worker #{worker.id} <span className="muted">of {symbol}</span>
      </h1>
      <p>
        <span className={`badge ${worker.status}`}>{worker.status}</span> {STATUS_MEANING[worker.status]}
        {worker.status === "suspended" && stats.lastOverrideAt !== null && (
          <>
            {" "}
            Last override by a {stats.overridingTier ?? "manager"} <RelativeTime time={stats.lastOverrideAt} />.
          </>
        )}
        <SuspensionEnd until={worker.suspendedUntil} />
      </p>
      <p>
        Token <Link href={`/tokens/${worker.tokenAddress}`}>{symbol}</Link>{" "}
        <CopyableAddress address={worker.tokenAddress} label="token address" /> · NFT #{worker.agentNftId}
      </p>

      <section aria-labelledby="worker-stats-heading">
        <h2 id="worker-stats-heading">Activity</h2>
        <dl className="stats">
          <div>
            <dt>Actions</dt>
            <dd>{stats.totalActions}</dd>
          </div>
          <div>
            <dt>Last active</dt>
            <dd>
              <RelativeTime time={worker.lastActiveAt} />
            </dd>
          </div>
          <div>
            <dt>Deployed</dt>
            <dd>
              <RelativeTime time={worker.deployedAt} />
            </dd>
          </div>
          <div>
            <dt>Last override</dt>
            <dd>
              {stats.lastOverrideAt === null ? (
                "none"
              ) : (
                <>
                  <RelativeTime time={stats.lastOverrideAt} />
                  {stats.overridingTier ? ` by a ${stats.overridingTier}` : ""}
                </>
              )}
            </dd>
          </div>
          <div>
            <dt>Proposals</dt>
            <dd>
              {votes.activeProposals} open · {votes.recentlyClosed} closed in 7 days
            </dd>
          </div>
        </dl>
      </section>

      <section aria-labelledby="worker-config-heading">
        <h2 id="worker-config-heading">Configuration</h2>
        <dl className="stats">
          <div>
            <dt>Slippage cap</dt>
            <dd>{config.slippageCapBps} bps</dd>
          </div>
          <div>
            <dt>MEV protection</dt>
            <dd>{config.mevProtection}</dd>
          </div>
          <div>
            <dt>Signals</dt>
            <dd>{config.signalSubscriptions.length ? config.signalSubscriptions.join(", ") : "none"}</dd>
          </div>
        </dl>
        <p className="muted">
          Token holders change it by vote: see the proposals on the{" "}
          <Link href={`/tokens/${worker.tokenAddress}`}>token page</Link>.
        </p>
      </section>

      <WorkerActions agentNftId={worker.agentNftId} symbol={symbol} onAction={refresh} />
    </>
  );
}
