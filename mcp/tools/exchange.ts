import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { INTERVALS } from "../../exchange/core/candles/index.ts";
import { type Guard, pageSize, registerReadTool, type ToolContext } from "./tool.ts";

// The exchange's response schemas are private to exchange/ (dependency rule), so its answers are
// passed on as loose objects: SPEC.md's field names, unchanged.
const row = z.looseObject({});
const rows = z.object({ items: z.array(row) });
const pair = z
  .string()
  .regex(/^[A-Z0-9]{1,16}_[A-Z0-9]{1,16}$/)
  .describe("Pair code <base>_<quote>, e.g. ETH_USDT");
const isoTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/)
  .describe("ISO 8601 UTC without offset");

/** The exchange's public market data (SPEC.md "Public API"). */
export function registerExchangeReads(server: McpServer, context: ToolContext, guard: Guard) {
  const read = <I extends z.ZodObject, O extends z.ZodObject>(spec: Parameters<typeof registerReadTool<I, O>>[3]) =>
    registerReadTool(server, context, guard, spec);
  read({
    name: "list_pairs",
    title: "Exchange pairs",
    description: "Every currency pair with its settings (GET /api/currencies/pairs).",
    input: z.object({}),
    output: rows,
    side: "exchange",
    wrap: "items",
    request: () => ({ path: "/api/currencies/pairs" }),
  });
  read({
    name: "get_ticker",
    title: "Exchange ticker",
    description: "One pair's ticker (GET /api/tickers).",
    input: z.object({ currencyPairCode: pair }),
    output: row,
    side: "exchange",
    request: (q) => ({ path: "/api/tickers", query: q }),
  });
  read({
    name: "get_order_book",
    title: "Exchange order book",
    description: "Up to 40 bid and 40 ask levels of a pair (GET /api/orderbook).",
    input: z.object({ currencyPairCode: pair }),
    output: rows,
    side: "exchange",
    wrap: "items",
    request: (q) => ({ path: "/api/orderbook", query: q }),
  });
  read({
    name: "list_deals",
    title: "Exchange deals",
    description: "A pair's trades, newest first, up to 100 a page (GET /api/deals).",
    input: z.object({
      currencyPairCode: pair,
      sinceDate: isoTime.optional(),
      endDate: isoTime.optional(),
      pageNumber: z.number().int().min(1).max(1_000_000_000).optional(),
      pageSize: pageSize.describe("Deals per page, 1..100, default 100"),
    }),
    output: rows,
    side: "exchange",
    wrap: "items",
    request: (q) => ({ path: "/api/deals", query: q }),
  });
  read({
    name: "get_exchange_candles",
    title: "Exchange candles",
    description: "A pair's candles over [start, end], oldest first (GET /api/ohlc).",
    input: z.object({ currencyPairCode: pair, interval: z.enum(INTERVALS), start: isoTime, end: isoTime }),
    output: rows,
    side: "exchange",
    wrap: "items",
    request: (q) => ({ path: "/api/ohlc", query: q }),
  });
}
