import { createRouteServer, OpenAPIHono } from "../../lib/http/index.ts";
import type { Db } from "../db.ts";
import { currentTime, type WallClock } from "../shared/clock.ts";
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
}

const serve = createRouteServer();

/** /api/launchpad reads: the token list and, per token, its detail, pool, worker, trades, candles and holders. */
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
  serve(tokens, base, tradesRoute, async ({ params, query, c }) => c.json(await poolTrades(db, params.id, query)));
  serve(tokens, base, candlesRoute, async ({ params, query, c }) => c.json(await poolCandles(db, params.id, query)));
  serve(tokens, base, holdersRoute, async ({ params, query, c }) => c.json(await tokenHolders(db, params.id, query)));
  return new OpenAPIHono().route("/tokens", tokens);
}
