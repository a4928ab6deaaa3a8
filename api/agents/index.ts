import { createRouteServer, OpenAPIHono } from "../../lib/http/index.ts";
import type { Db } from "../db.ts";
import { currentTime, type WallClock } from "../shared/clock.ts";
import { toPage } from "../shared/pagination.ts";
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

const serve = createRouteServer();

/** /api/agents: overview, workers, action log (one sub-app per resource). */
export function agentsApi({ db, wallClock }: AgentsDeps) {
  const now = () => currentTime(db, wallClock);

  const overviewApp = new OpenAPIHono();
  serve(overviewApp, `${AGENTS_BASE}/overview`, overviewRoute, async ({ c }) =>
    c.json(await overview(db, await now())),
  );

  const workersApp = new OpenAPIHono();
  serve(workersApp, `${AGENTS_BASE}/workers`, workersRoute, async ({ query, c }) =>
    c.json(await listWorkers(db, await now(), { status: query.status, tokenAddress: query.tokenAddress }, query)),
  );
  serve(workersApp, `${AGENTS_BASE}/workers`, workerDetailRoute, async ({ params, c }) =>
    c.json(await workerDetail(db, await now(), params.tokenId)),
  );

  const actionLogsApp = new OpenAPIHono();
  serve(actionLogsApp, `${AGENTS_BASE}/action-logs`, actionLogsRoute, async ({ query, c }) => {
    const { rows, total } = await findActions(db, query, query);
    return c.json(toPage(rows.map(toActionLogEntry), query, total));
  });

  return new OpenAPIHono()
    .route("/overview", overviewApp)
    .route("/workers", workersApp)
    .route("/action-logs", actionLogsApp);
}
