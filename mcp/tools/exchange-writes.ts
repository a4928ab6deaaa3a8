import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { signRequest } from "../../exchange/adapters/auth/index.ts";
import { toolError, toolResult } from "../errors.ts";
import { failureOf, pathWithQuery, type Query } from "../http-client.ts";
import { type Guard, registerWriteTool, type ToolContext } from "./tool.ts";

/** The caller's exchange API key pair (API_PUBLIC_KEY, API_PRIVATE_KEY). */
export interface ApiKeyPair {
  publicKey: string;
  privateKey: string;
}

const pair = z.string().regex(/^[A-Z0-9]{1,16}_[A-Z0-9]{1,16}$/);
const decimal = z.string().regex(/^\d{1,30}(\.\d{1,18})?$/);
const idempotencyKey = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,64}$/)
  .optional()
  .describe("Retrying with the same key returns the first order, never a second one (the exchange's clientOrderId)");
const answer = z.looseObject({});

export interface SignedCallOptions {
  query?: Query;
  body?: unknown;
  /** The ecosystem API's writes are signed with the same exchange key (it verifies through the exchange). */
  side?: "exchange" | "ecosystem";
  headers?: Record<string, string>;
}

/**
 * One signed call to the exchange, as SPEC.md signs them (exchange/adapters/auth: HMAC of public
 * key, URL, body and API-Timestamp, which makes it single-use). A refusal keeps its code.
 */
export async function signedCall(
  context: ToolContext,
  keys: ApiKeyPair,
  method: string,
  path: string,
  { query, body, side = "exchange", headers: extraHeaders = {} }: SignedCallOptions,
  signal: AbortSignal,
) {
  const url = `${context[side].base}${pathWithQuery(path, query)}`;
  const text = body === undefined ? "" : JSON.stringify(body);
  const headers: Record<string, string> = {
    ...signRequest({ ...keys, method, url, body: text, timestamp: (context.now ?? Date.now)() }),
    accept: "application/json",
    ...(text === "" ? {} : { "content-type": "application/json" }),
    ...extraHeaders,
  };
  let response: Response;
  try {
    response = await context[side].fetch(url, { method, headers, body: text === "" ? undefined : text, signal });
  } catch {
    return toolError(
      signal.aborted
        ? { code: "TIMEOUT", message: `the ${side} did not answer in time` }
        : { code: "UNAVAILABLE", message: `the ${side} is not reachable` },
    );
  }
  const data: unknown = await response.json().catch(() => undefined);
  if (!response.ok) return toolError(failureOf(data, response.status));
  const wrapped = Array.isArray(data) ? { items: data } : data;
  return toolResult(answer.parse(wrapped ?? {}) as Record<string, unknown>);
}

/** Orders and balances on the exchange with the caller's key pair: registered only when it is set. */
export function registerExchangeWrites(server: McpServer, context: ToolContext, guard: Guard, keys: ApiKeyPair) {
  const tool = <I extends z.ZodObject>(
    name: string,
    config: { title: string; description: string; input: I; readOnly: boolean },
    run: (args: z.output<I>, signal: AbortSignal) => ReturnType<typeof signedCall>,
  ) => registerWriteTool(server, guard, name, config, run);

  tool(
    "place_order",
    {
      title: "Place an exchange order",
      description:
        "POST /api/orders (signed): a limit order (price) or a market order (type market; quoteAmount is a market " +
        "buy's budget). Answers the order it made, or the exchange's code (INSUFFICIENT_BALANCE, UNKNOWN_PAIR...).",
      input: z.object({
        isBid: z.boolean().describe("true: buy the base currency"),
        currencyPairCode: pair,
        amount: decimal,
        price: decimal.optional(),
        type: z.enum(["limit", "market"]).optional(),
        timeInForce: z.enum(["GTC", "IOC", "FOK"]).optional(),
        postOnly: z.boolean().optional(),
        quoteAmount: decimal.optional(),
        idempotencyKey,
      }),
      readOnly: false,
    },
    ({ idempotencyKey: key, ...order }, signal) =>
      signedCall(context, keys, "POST", "/api/orders", { body: { ...order, clientOrderId: key } }, signal),
  );
  tool(
    "cancel_order",
    {
      title: "Cancel an exchange order",
      description:
        "DELETE /api/orders/{id} (signed); 409 ORDER_NOT_OPEN when it is no longer open. Repeating it is harmless.",
      input: z.object({ id: z.uuid(), idempotencyKey }),
      readOnly: false,
    },
    ({ id }, signal) => signedCall(context, keys, "DELETE", `/api/orders/${id}`, {}, signal),
  );
  tool(
    "list_orders",
    {
      title: "My exchange orders",
      description: "GET /api/orders (signed): the caller's orders, newest first, up to 100 a page.",
      input: z.object({
        status: z.enum(["open", "history", "all"]).optional(),
        currencyPairCode: pair.optional(),
        pageNumber: z.number().int().min(1).max(1_000_000_000).optional(),
        pageSize: z.number().int().min(1).max(100).optional(),
      }),
      readOnly: true,
    },
    (query, signal) => signedCall(context, keys, "GET", "/api/orders", { query }, signal),
  );
  tool(
    "get_balances",
    {
      title: "My exchange balances",
      description: "GET /api/balances (signed): available, locked and total per currency, as { items }.",
      input: z.object({}),
      readOnly: true,
    },
    (_args, signal) => signedCall(context, keys, "GET", "/api/balances", {}, signal),
  );
}
