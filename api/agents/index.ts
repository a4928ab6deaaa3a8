import { createRouteServer, OpenAPIHono } from "../../lib/http/index.ts";
import type { Db } from "../db.ts";
import { currentTime, type WallClock } from "../shared/clock.ts";
import { toPage } from "../shared/pagination.ts";
import type { Reads } from "../shared/reads.ts";
import { findActions } from "./action-log-query.ts";
import { toActionLogEntry } from "./format.ts";
import { overview } from "./overview.ts";
import { listWorkerProposals, proposalDetail } from "./proposals.ts";
import { proposalDetailRoute, workerProposalsRoute } from "./proposals-routes.ts";
import { actionLogsRoute, AGENTS_BASE, overviewRoute, workerDetailRoute, workersRoute } from "./routes.ts";
import { listWorkers, workerDetail } from "./workers.ts";

export { agentRoutes, AGENTS_BASE } from "./routes.ts";
/** Proposal state and tally as WorkerVoting computes them; the vote endpoint answers the same tally JSON. */
export {
  currentlyPassing,
  EXECUTION_WINDOW,
  proposalNotFound,
  proposalState,
  quorumReached,
  type ProposalRow,
  type TallyInput,
  tallyOf,
  toProposalJson,
} from "./proposals.ts";
export {
  PROPOSAL_STATES,
  type ProposalJson,
  type ProposalStateName,
  proposalSchema,
  type Tally,
  tallySchema,
  type VoteJson,
  voteSchema,
} from "./proposals-routes.ts";

export interface AgentsDeps {
  db: Db;
  wallClock: WallClock;
  /** Where the reads are served from (REST, and /mcp in process). */
  reads: Reads;
}

const serve = createRouteServer();

/** /api/agents: overview, workers (and their proposals), proposals, action log (one sub-app per resource). */
export function agentsApi({ db, wallClock, reads }: AgentsDeps) {
  const now = () => currentTime(db, wallClock);

  const overviewApp = new OpenAPIHono();
  reads.serve(serve, overviewApp, `${AGENTS_BASE}/overview`, overviewRoute, async () => overview(db, await now()));

  const workersApp = new OpenAPIHono();
  reads.serve(serve, workersApp, `${AGENTS_BASE}/workers`, workersRoute, async ({ query }) =>
    listWorkers(db, await now(), { status: query.status, tokenAddress: query.tokenAddress }, query),
  );
  reads.serve(serve, workersApp, `${AGENTS_BASE}/workers`, workerDetailRoute, async ({ params }) =>
    workerDetail(db, await now(), params.tokenId),
  );
  reads.serve(serve, workersApp, `${AGENTS_BASE}/workers`, workerProposalsRoute, async ({ params, query }) =>
    listWorkerProposals(db, await now(), params.tokenId, query),
  );

  const proposalsApp = new OpenAPIHono();
  reads.serve(serve, proposalsApp, `${AGENTS_BASE}/proposals`, proposalDetailRoute, async ({ params, query }) =>
    proposalDetail(db, await now(), params.proposalId, query),
  );

  const actionLogsApp = new OpenAPIHono();
  reads.serve(serve, actionLogsApp, `${AGENTS_BASE}/action-logs`, actionLogsRoute, async ({ query }) => {
    const { rows, total } = await findActions(db, query, query);
    return toPage(rows.map(toActionLogEntry), query, total);
  });

  return new OpenAPIHono()
    .route("/overview", overviewApp)
    .route("/workers", workersApp)
    .route("/proposals", proposalsApp)
    .route("/action-logs", actionLogsApp);
}
