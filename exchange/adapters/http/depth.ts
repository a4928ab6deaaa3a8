import { z } from "zod";
import { OpenAPIHono } from "../../../lib/http/index.ts";
import type { Exchange } from "../../application/index.ts";
import { formatAmount, formatPrice } from "../../core/money/index.ts";
import { pairQuery, positiveInt, unknownPair } from "./schemas.ts";
import { serve } from "./serve.ts";

/**
 * GET /api/depth: the committed book with the update id it is at, for clients that keep a local
 * book from the `<PAIR>@depth` stream (beyond SPEC.md; Binance's /api/v3/depth layout). Levels
 * are `[price, amount]` exact decimal strings, best first.
 */

const MAX_LEVELS = 1000;
const level = z.tuple([z.string(), z.string()]).meta({ example: ["2000.5", "1.25"] });

export function depthApi(exchange: Exchange) {
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
      query: pairQuery.extend({ limit: positiveInt(MAX_LEVELS, 100, `Levels per side (1..${MAX_LEVELS})`) }),
      response: z.object({ lastUpdateId: z.number().int(), bids: z.array(level), asks: z.array(level) }),
      errors: [unknownPair],
    },
    ({ query, c }) => {
      const { row, spec } = exchange.reference.pair(query.currencyPairCode);
      const view = exchange.committed;
      const side = (isBid: boolean) =>
        view
          .levels(row.code, isBid, query.limit)
          .map((l) => [formatPrice(l.priceTicks, spec), formatAmount(l.lots, spec)] as const);
      return c.json({ lastUpdateId: view.updateId(row.code), bids: side(true), asks: side(false) });
    },
  );
  return app;
}
