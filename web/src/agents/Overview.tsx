import { useQuery } from "@tanstack/react-query";
import { QueryState } from "../components/states.tsx";
import { RelativeTime } from "../components/time.tsx";
import { usePlatform } from "../context.ts";

/**
 * GET /api/agents/overview: the hive (who exists), the swarm (who acts) and the ecosystem's last
 * day and week, on the launchpad and the agents page alike. The launchpad's live feed invalidates
 * the "overview" query when something happens.
 */
export function AgentsOverview({ title }: { title: string }) {
  const { api } = usePlatform();
  const query = useQuery({
    queryKey: ["overview"],
    queryFn: () => api.eco("/api/agents/overview"),
    refetchInterval: 30_000,
  });
  return (
    <section aria-labelledby="agents-overview-heading">
      <h2 id="agents-overview-heading">{title}</h2>
      <QueryState query={query} loading="Loading the overview…">
        {(o) => (
          <dl className="stats">
            <div>
              <dt>Agent tokens</dt>
              <dd>{o.hive.totalTokens}</dd>
            </div>
            <div>
              <dt>Workers (active)</dt>
              <dd>
                {o.hive.totalWorkers} ({o.swarm.activeWorkers})
              </dd>
            </div>
            <div>
              <dt>Queens · scouts</dt>
              <dd>
                {o.hive.totalQueens} · {o.hive.totalScouts}
              </dd>
            </div>
            <div>
              <dt>Spawned 24h · 7d</dt>
              <dd>
                {o.ecosystem.tokensSpawnedLast24h} · {o.ecosystem.tokensSpawnedLast7d}
              </dd>
            </div>
            <div>
              <dt>Actions 24h</dt>
              <dd>{o.ecosystem.totalActions24h}</dd>
            </div>
            <div>
              <dt>Overrides 24h</dt>
              <dd>{o.ecosystem.totalOverrides24h}</dd>
            </div>
            <div>
              <dt>Last agent activity</dt>
              <dd>
                <RelativeTime time={o.swarm.lastActivityAt} />
              </dd>
            </div>
          </dl>
        )}
      </QueryState>
    </section>
  );
}
