import { useQuery } from "@tanstack/react-query";
import { QueryState } from "../components/states.tsx";
import { RelativeTime } from "../components/time.tsx";
import { usePlatform } from "../context.ts";

/** GET /api/agents/overview: the hive (who exists), the swarm (who acts) and the last day's activity. */
export function AgentsOverview() {
  const { api } = usePlatform();
  const query = useQuery({
    queryKey: ["overview"],
    queryFn: () => api.eco("/api/agents/overview"),
    refetchInterval: 30_000,
  });
  return (
    <section aria-labelledby="agents-overview-heading">
      <h2 id="agents-overview-heading">Hive and swarm</h2>
      <QueryState query={query} loading="Loading the overview…">
        {(o) => (
          <dl className="stats">
            <div>
              <dt>Workers</dt>
              <dd>{o.hive.totalWorkers}</dd>
            </div>
            <div>
              <dt>Active in the swarm</dt>
              <dd>{o.swarm.activeWorkers}</dd>
            </div>
            <div>
              <dt>Queens</dt>
              <dd>{o.hive.totalQueens}</dd>
            </div>
            <div>
              <dt>Scouts</dt>
              <dd>{o.hive.totalScouts}</dd>
            </div>
            <div>
              <dt>Agent tokens</dt>
              <dd>{o.hive.totalTokens}</dd>
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
              <dt>Last action</dt>
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
