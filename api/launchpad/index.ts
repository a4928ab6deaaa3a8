import { createRouteServer, OpenAPIHono } from "../../lib/http/index.ts";
import type { Db } from "../db.ts";
import { currentTime, type WallClock } from "../shared/clock.ts";
import type { Pricing } from "../shared/units.ts";
import { poolDetail } from "./pool.ts";
import { LAUNCHPAD_BASE, poolRoute, tokenDetailRoute, tokensRoute, tokenWorkerRoute } from "./routes.ts";
import { listTokens, tokenDetail } from "./tokens.ts";
import { tokenWorker } from "./worker.ts";

export { launchpadRoutes, LAUNCHPAD_BASE } from "./routes.ts";

export interface LaunchpadDeps {
  db: Db;
  wallClock: WallClock;
  pricing: Pricing;
}

const serve = createRouteServer();

/** /api/launchpad reads: the token list and, per token, its detail, pool and worker. */
export function launchpadApi({ db, wallClock, pricing }: LaunchpadDeps) {
  const now = () => currentTime(db, wallClock);
  const base = `${LAUNCHPAD_BASE}/tokens`;
  const tokens = new OpenAPIHono();
  serve(tokens, base, tokensRoute, async ({ query, c }) =>
    c.json(await listTokens(db, await now(), pricing, query, query)),
  );
  serve(tokens, base, tokenDetailRoute, async ({ params, c }) =>
    c.json(await tokenDetail(db, await now(), pricing, params.id)),
  );
  serve(tokens, base, poolRoute, async ({ params, c }) =>
    c.json(await poolDetail(db, await now(), pricing, params.id)),
  );
  serve(tokens, base, tokenWorkerRoute, async ({ params, c }) => c.json(await tokenWorker(db, await now(), params.id)));
  return new OpenAPIHono().route("/tokens", tokens);
}
