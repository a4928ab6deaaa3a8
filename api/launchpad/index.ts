import { Hono } from "hono";
import type { Db } from "../db.ts";
import { currentTime, type WallClock } from "../shared/clock.ts";
import { mountRoute } from "../shared/route.ts";
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

/** /api/launchpad reads: the token list and, per token, its detail, pool and worker. */
export function launchpadApi({ db, wallClock, pricing }: LaunchpadDeps): Hono {
  const now = () => currentTime(db, wallClock);
  const base = `${LAUNCHPAD_BASE}/tokens`;
  const tokens = new Hono();
  mountRoute(tokens, base, tokensRoute, async ({ query }) => listTokens(db, await now(), pricing, query, query));
  mountRoute(tokens, base, tokenDetailRoute, async ({ params }) => tokenDetail(db, await now(), pricing, params.id));
  mountRoute(tokens, base, poolRoute, async ({ params }) => poolDetail(db, await now(), pricing, params.id));
  mountRoute(tokens, base, tokenWorkerRoute, async ({ params }) => tokenWorker(db, params.id));
  return new Hono().route("/tokens", tokens);
}
