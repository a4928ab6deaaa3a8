import { z } from "zod";
import { integerParam, OpenAPIHono } from "../../../lib/http/index.ts";
import type { Exchange } from "../../application/index.ts";
import { pairCode } from "./schemas.ts";
import { serve } from "./serve.ts";

/**
 * GET /api/depth: the committed book with the update id it is at, for clients that keep a local
 * book from the `<PAIR>@depth` stream (beyond SPEC.md; Binance's /api/v3/depth layout). Levels
 * are `[price, amount]` exact decimal strings, best first.
 */

export type DepthSnapshot = (
  pairCode: string,
  limit: number,
) => {
  lastUpdateId: number;
  bids: (readonly [string, string])[];
  asks: (readonly [string, string])[];
};

const MAX_LEVELS = 1000;
const level = z.tuple([z.string(), z.string()]).meta({ example: ["2000.5", "1.25"] });

export function depthApi(exchange: Exchange, snapshot: DepthSnapshot) {
  const app = new OpenAPIHono();
  serve(
    app,
    "/api",
    {
      method: "get",
      path: "/api/depth",
      tag: "Market data",
      summary: "Order book snapshot with its update id, for following the @depth stream (beyond SPEC.md)",
      description:
        "Up to `limit` levels a side (default 100, at most 1000), best first, as [price, amount] decimal strings. lastUpdateId is the " +
        "`u` of the last @depth event this snapshot includes: drop buffered events with u <= lastUpdateId, apply the first with " +
        "U <= lastUpdateId + 1 <= u, then each next event must have U = previous u + 1 (else fetch a new snapshot).",
      access: "public",
      query: z.object({
        currencyPairCode: pairCode.meta({ description: "Pair code <base>_<target>", example: "ALPHA_USDT" }),
        limit: integerParam(1, MAX_LEVELS, {
          notInteger: "must be an integer",
          tooSmall: "must be at least 1",
          tooLarge: `must be at most ${MAX_LEVELS}`,
        })
          .default(100)
          .meta({ default: 100, description: `Levels per side (1..${MAX_LEVELS})` }),
      }),
      response: z.object({ lastUpdateId: z.number().int(), bids: z.array(level), asks: z.array(level) }),
      errors: [{ status: 400, code: "UNKNOWN_PAIR", when: "currencyPairCode is not a trading pair" }],
    },
    ({ query, c }) => {
      const pair = exchange.reference.pair(query.currencyPairCode);
      return c.json(snapshot(pair.row.code, query.limit));
    },
  );
  return app;
}
