import { Hono } from "hono";
import type { Db } from "../db.ts";
import { currentTime, type WallClock } from "../shared/clock.ts";
import { pageOf } from "../shared/pagination.ts";
import { mountRoute } from "../shared/route.ts";
import { findActions } from "./action-log-query.ts";
import { toActionLogEntry } from "./format.ts";
import { overview } from "./overview.ts";
import { actionLogsRoute, AGENTS_BASE, overviewRoute, workerDetailRoute, workersRoute } from "./routes.ts";
import { listWorkers, workerDetail } from "./workers.ts";

export { agentRoutes, AGENTS_BASE } from "./routes.ts";

export interface AgentsDeps {
  db: Db;
  wallClock: WallClock;
}

/** /api/agents: overview, workers, action log (one sub-app per resource). */
export function agentsApi({ db, wallClock }: AgentsDeps): Hono {
  const now = () => currentTime(db, wallClock);

  const overviewApp = new Hono();
  mountRoute(overviewApp, `${AGENTS_BASE}/overview`, overviewRoute, async () => overview(db, await now()));

  const workersApp = new Hono();
  mountRoute(workersApp, `${AGENTS_BASE}/workers`, workersRoute, async ({ query }) =>
    listWorkers(db, await now(), { status: query.status, tokenAddress: query.tokenAddress }, query),
  );
  mountRoute(workersApp, `${AGENTS_BASE}/workers`, workerDetailRoute, async ({ params }) =>
    workerDetail(db, await now(), params.tokenId),
  );

  const actionLogsApp = new Hono();
  mountRoute(actionLogsApp, `${AGENTS_BASE}/action-logs`, actionLogsRoute, async ({ query }) => {
    const { rows, total } = await findActions(db, query, query);
    return pageOf(rows.map(toActionLogEntry), query, total);
  });

  return new Hono().route("/overview", overviewApp).route("/workers", workersApp).route("/action-logs", actionLogsApp);
}
