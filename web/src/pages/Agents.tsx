import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Link, useSearchParams } from "wouter";
import { useTokenDirectory } from "../agents/directory.ts";
import { parseWorkerFilters, WORKER_STATUSES, type WorkerFilters, workerSearch } from "../agents/filters.ts";
import { AgentsOverview } from "../agents/Overview.tsx";
import { Pager } from "../components/Pager.tsx";
import { ShortAddress } from "../components/address.tsx";
import { Empty, QueryState } from "../components/states.tsx";
import { RelativeTime } from "../components/time.tsx";
import { usePlatform } from "../context.ts";

const PAGE_SIZE = 20;

const STATUS_TEXT: Record<(typeof WORKER_STATUSES)[number], string> = {
  active: "Active (in the swarm)",
  idle: "Idle",
  suspended: "Suspended",
};

export default function AgentsPage() {
  const { api } = usePlatform();
  const [params, setParams] = useSearchParams();
  const filters = parseWorkerFilters(params);
  const tokens = useTokenDirectory();
  const workers = useQuery({
    queryKey: ["workers", filters.status ?? "", filters.token ?? "", filters.page],
    queryFn: () =>
      api.eco("/api/agents/workers", {
        query: {
          page: filters.page,
          pageSize: PAGE_SIZE,
          ...(filters.status ? { status: filters.status } : {}),
          ...(filters.token ? { tokenAddress: filters.token } : {}),
        },
      }),
    placeholderData: keepPreviousData,
    // Statuses and 24h counts move with the agents; a light poll keeps them true without a
    // request per action (the action log page is the live view).
    refetchInterval: 15_000,
  });
  const apply = (change: Partial<WorkerFilters>) => setParams(workerSearch({ ...filters, page: 1, ...change }));
  const tokenOptions = [...tokens.values()].sort((a, b) => a.symbol.localeCompare(b.symbol));
  const tokenKnown = filters.token === undefined || tokenOptions.some((t) => t.address === filters.token);
  const filtered = filters.status !== undefined || filters.token !== undefined;

  return (
    <>
      <h1>Agents</h1>
      <p className="muted">
        Every agent token has a worker that trades and manages it. Queens and scouts oversee them and can suspend one
        for a cool-off. See what they do in the <Link href="/agents/actions">action log</Link>.
      </p>
      <AgentsOverview title="Hive and swarm" />
      <section aria-labelledby="workers-heading">
        <h2 id="workers-heading">Workers</h2>
        <form className="toolbar" aria-label="Worker filters" onSubmit={(e) => e.preventDefault()}>
          <label>
            Status
            <select
              value={filters.status ?? ""}
              onChange={(e) => apply({ status: (e.target.value || undefined) as WorkerFilters["status"] })}
            >
              <option value="">All statuses</option>
              {WORKER_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {STATUS_TEXT[s]}
                </option>
              ))}
            </select>
          </label>
          <label>
            Token
            <select value={filters.token ?? ""} onChange={(e) => apply({ token: e.target.value || undefined })}>
              <option value="">All tokens</option>
              {!tokenKnown && <option value={filters.token}>{filters.token}</option>}
              {tokenOptions.map((t) => (
                <option key={t.address} value={t.address}>
                  {t.symbol}
                </option>
              ))}
            </select>
          </label>
          {filtered && (
            <button type="button" className="secondary" onClick={() => setParams("")}>
              Clear filters
            </button>
          )}
        </form>
        <QueryState query={workers} loading="Loading workers…">
          {(data) =>
            data.items.length === 0 ? (
              <Empty>
                {filtered ? (
                  "No worker matches these filters."
                ) : (
                  <>
                    No worker yet: each spawned token gets one. <Link href="/spawn">Spawn a token</Link>.
                  </>
                )}
              </Empty>
            ) : (
              <>
                <div className="table-wrap">
                  <table aria-labelledby="workers-heading">
                    <thead>
                      <tr>
                        <th scope="col">Worker</th>
                        <th scope="col">Token</th>
                        <th scope="col">Status</th>
                        <th scope="col">Last active</th>
                        <th scope="col" className="num">
                          Actions 24h
                        </th>
                        <th scope="col" className="num">
                          Slippage cap
                        </th>
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
                            <Link href={`/tokens/${w.tokenAddress}`}>
                              <strong>{w.tokenSymbol}</strong>
                            </Link>{" "}
                            <ShortAddress address={w.tokenAddress} />
                          </td>
                          <td>
                            <span className={`badge ${w.status}`}>{w.status}</span>
                          </td>
                          <td>
                            <RelativeTime time={w.lastActiveAt} />
                          </td>
                          <td className="num">{w.actionCount24h}</td>
                          <td className="num">{w.config.slippageCapBps} bps</td>
                          <td>{w.config.mevProtection}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                <Pager
                  page={filters.page}
                  pageSize={PAGE_SIZE}
                  totalItems={data.totalItems}
                  noun="workers"
                  label="Worker pages"
                  onPage={(page) => setParams(workerSearch({ ...filters, page }))}
                />
              </>
            )
          }
        </QueryState>
      </section>
    </>
  );
}
