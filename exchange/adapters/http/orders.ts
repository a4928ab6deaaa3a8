import { z } from "zod";
import { OpenAPIHono } from "../../../lib/http/index.ts";
import type { SignedVariables } from "../auth/index.ts";
import { apiErrorOf } from "./domain-errors.ts";
import { bookRejection, type Exchange } from "../../application/index.ts";
import { serve } from "./serve.ts";
import { cancelAllQuery, listOrdersQuery, orderIdParam, pageSchema, placeOrderBody } from "./schemas.ts";
import { orderView, pageView } from "./views.ts";

// /api/orders: place, list, inspect and cancel (signed, or a web session: app.ts authenticates first).

const decimal = z.number().meta({ description: "Decimal, exact (JSON number)" });
const fillSchema = z.object({
  dealId: z.uuid(),
  tradeId: z.number().int(),
  price: decimal,
  amount: decimal,
  quoteAmount: decimal,
  isMaker: z.boolean(),
  fee: decimal,
  feeCurrencyCode: z.string(),
  dealDateUtc: z.string(),
});
export const orderSchema = z.object({
  id: z.uuid(),
  clientOrderId: z.string().nullable(),
  currencyPairCode: z.string(),
  isBid: z.boolean(),
  type: z.enum(["limit", "market"]),
  timeInForce: z.enum(["GTC", "IOC", "FOK"]),
  postOnly: z.boolean(),
  selfTradePrevention: z.enum(["cancel_resting", "cancel_taker"]),
  price: decimal.nullable(),
  amount: decimal,
  quoteAmount: decimal.nullable().meta({ description: "Market buys: the quote budget that was locked" }),
  filledAmount: decimal,
  filledQuoteAmount: decimal,
  remainingAmount: decimal.meta({ description: "Still resting on the book (0 once the order is closed)" }),
  status: z.enum(["open", "filled", "cancelled", "rejected"]),
  reason: z.string().nullable().meta({
    description: "Why it closed without a full fill: UNFILLED, SELF_TRADE, USER_CANCEL, BUDGET_EXHAUSTED, ...",
  }),
  createdAt: z.string(),
  updatedAt: z.string(),
  fills: z.array(fillSchema).optional(),
});
const orderPage = pageSchema(orderSchema);

const placeErrors = [
  { status: 400, code: "UNKNOWN_PAIR", when: "currencyPairCode is not a trading pair" },
  { status: 400, code: "INSUFFICIENT_BALANCE", when: "the order needs more than the available balance" },
  {
    status: 400,
    code: "MIN_QUOTE_AMOUNT",
    when: "price x amount (or the market buy budget) is below the pair's minQuoteAmount",
  },
  { status: 400, code: "NO_LIQUIDITY", when: "a market order finds no opposite side" },
  { status: 400, code: "POST_ONLY_WOULD_TAKE", when: "a post-only order would trade at once" },
  { status: 400, code: "FOK_NOT_FILLABLE", when: "a fill-or-kill order cannot fill in full" },
];

export function ordersApi(exchange: Exchange) {
  const app = new OpenAPIHono<{ Variables: SignedVariables }>();
  const base = "/api/orders";

  serve(
    app,
    base,
    {
      method: "post",
      path: "/api/orders",
      tag: "Trading",
      summary: "Place an order",
      description:
        "Limit (default, GTC unless timeInForce says IOC/FOK, optional postOnly) or market (IOC or FOK; a buy locks quoteAmount, or what amount costs " +
        "on the book now). price and amount must fit the pair's digitsPrice and digitsAmount (never rounded). A repeated clientOrderId returns the first " +
        "order with 200 and Idempotent-Replay: true. An order the book turns away is kept as rejected and answered with its reason as the error code.",
      access: "signed-or-session",
      body: placeOrderBody,
      response: orderSchema,
      status: 201,
      errors: placeErrors,
    },
    async ({ body, c }) => {
      const result = await exchange.placeOrder(c.get("auth").userId, body);
      if (result.replay) c.header("Idempotent-Replay", "true");
      const rejection = bookRejection(result.order);
      if (!rejection.ok) throw apiErrorOf(rejection);
      return c.json(orderView(exchange, result.order, result.fills), result.replay ? 200 : 201);
    },
  );

  serve(
    app,
    base,
    {
      method: "get",
      path: "/api/orders",
      tag: "Trading",
      summary: "The caller's orders, newest first",
      access: "signed-or-session",
      query: listOrdersQuery,
      response: orderPage,
      errors: [placeErrors[0]],
    },
    async ({ query, c }) => {
      const page = await exchange.orders(c.get("auth").userId, {
        pairCode: query.currencyPairCode,
        scope: query.status,
        page: query.pageNumber,
        pageSize: query.pageSize,
      });
      return c.json(pageView(page, query, (order) => orderView(exchange, order)));
    },
  );

  serve(
    app,
    base,
    {
      method: "get",
      path: "/api/orders/{id}",
      tag: "Trading",
      summary: "One of the caller's orders with its fills",
      access: "signed-or-session",
      params: orderIdParam,
      response: orderSchema,
      errors: [{ status: 404, code: "NOT_FOUND", when: "no such order of the caller" }],
    },
    async ({ params, c }) => {
      const order = await exchange.order(c.get("auth").userId, params.id);
      return c.json(orderView(exchange, order, await exchange.orderFills(params.id)));
    },
  );

  serve(
    app,
    base,
    {
      method: "delete",
      path: "/api/orders/{id}",
      tag: "Trading",
      summary: "Cancel one open order",
      access: "signed-or-session",
      params: orderIdParam,
      response: orderSchema,
      errors: [
        { status: 404, code: "NOT_FOUND", when: "no such order of the caller" },
        { status: 409, code: "ORDER_NOT_OPEN", when: "the order is already filled, cancelled or rejected" },
      ],
    },
    async ({ params, c }) => c.json(orderView(exchange, await exchange.cancelOrder(c.get("auth").userId, params.id))),
  );

  serve(
    app,
    base,
    {
      method: "delete",
      path: "/api/orders",
      tag: "Trading",
      summary: "Cancel every open order of the caller, on one pair or on all",
      access: "signed-or-session",
      query: cancelAllQuery,
      response: z.object({ cancelled: z.array(orderSchema) }),
      errors: [placeErrors[0]],
    },
    async ({ query, c }) => {
      const cancelled = await exchange.cancelAll(c.get("auth").userId, query.currencyPairCode);
      return c.json({ cancelled: cancelled.map((order) => orderView(exchange, order)) });
    },
  );

  return app;
}
