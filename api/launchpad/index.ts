import { createRouteServer, OpenAPIHono } from "../../lib/http/index.ts";
import type { Db } from "../db.ts";
import { currentTime, type WallClock } from "../shared/clock.ts";
import type { Reads } from "../shared/reads.ts";
import type { Pricing } from "../shared/units.ts";
import { poolCandles } from "./candles.ts";
import { tokenHolders } from "./holders.ts";
import { poolDetail } from "./pool.ts";
import {
  candlesRoute,
  holdersRoute,
  LAUNCHPAD_BASE,
  poolRoute,
  tokenDetailRoute,
  tokensRoute,
  tokenWorkerRoute,
  tradesRoute,
} from "./routes.ts";
import { listTokens, tokenDetail } from "./tokens.ts";
import { poolTrades } from "./trades.ts";
import { tokenWorker } from "./worker.ts";

export { launchpadRoutes, LAUNCHPAD_BASE } from "./routes.ts";

export interface LaunchpadDeps {
  db: Db;
  wallClock: WallClock;
  pricing: Pricing;
  /** Where the reads are served from (REST, and /mcp in process). */
  reads: Reads;
}

const serve = createRouteServer();

/** /api/launchpad reads: the token list and, per token, its detail, pool, worker, trades, candles and holders. */
export function launchpadApi({ db, wallClock, pricing, reads }: LaunchpadDeps) {
  const now = () => currentTime(db, wallClock);
  const base = `${LAUNCHPAD_BASE}/tokens`;
  const tokens = new OpenAPIHono();
  reads.serve(serve, tokens, base, tokensRoute, async ({ query }) =>
    listTokens(db, await now(), pricing, query, query),
  );
  reads.serve(serve, tokens, base, tokenDetailRoute, async ({ params }) =>
    tokenDetail(db, await now(), pricing, params.id),
  );
  reads.serve(serve, tokens, base, poolRoute, async ({ params }) => poolDetail(db, await now(), pricing, params.id));
  reads.serve(serve, tokens, base, tokenWorkerRoute, async ({ params }) => tokenWorker(db, await now(), params.id));
  reads.serve(serve, tokens, base, tradesRoute, ({ params, query }) => poolTrades(db, params.id, query));
  reads.serve(serve, tokens, base, candlesRoute, ({ params, query }) => poolCandles(db, params.id, query));
  reads.serve(serve, tokens, base, holdersRoute, ({ params, query }) => tokenHolders(db, params.id, query));
  return new OpenAPIHono().route("/tokens", tokens);
}
