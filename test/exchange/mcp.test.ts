/**
 * The MCP server's exchange tools against a running exchange, with the SDK's client over stdio
 * (`node mcp/main.ts` with the caller's API key pair in its environment): the market-data tools
 * answer what the public REST answers, and the signed tools place (idempotently), list and cancel
 * an order and read balances, a refusal keeping the exchange's code.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, it } from "vitest";
import { type Backend, createBackend } from "../../support/exchange/backends.ts";
import { startExchangeProcess } from "../../support/exchange/process.ts";
import { type Credentials, SigningClient } from "../../support/exchange/signing-client.ts";
import { freePort } from "../../support/net/free-port.ts";
import { stdioServer } from "../../support/mcp/stdio.ts";

const ctx = {} as { backend: Backend; child: ChildProcess; base: string; user: Credentials; client: Client };

beforeAll(async () => {
  ctx.backend = await createBackend("pglite");
  const port = await freePort();
  ({ child: ctx.child } = await startExchangeProcess(port, {
    ...ctx.backend.vars,
    EXCHANGE_PORT: String(port),
    EXCHANGE_DEMO: "true",
    DATABASE_URL: ctx.backend.vars.DATABASE_URL ?? "",
  }));
  ctx.base = `http://127.0.0.1:${port}`;
  ctx.user = await new SigningClient(ctx.base, ctx.backend.vars.EXCHANGE_ADMIN_TOKEN).user(0, { USDT: "1000" });
  ctx.client = new Client({ name: "mcp-exchange-test", version: "0" });
  await ctx.client.connect(
    stdioServer({ EXCHANGE_URL: ctx.base, API_PUBLIC_KEY: ctx.user.publicKey, API_PRIVATE_KEY: ctx.user.privateKey }),
  );
});

afterAll(async () => {
  await ctx.client?.close();
  ctx.child?.kill("SIGKILL");
  await ctx.backend?.cleanup();
});

async function call(name: string, args: Record<string, unknown> = {}) {
  return (await ctx.client.callTool({ name, arguments: args }, undefined, { timeout: 20_000 })) as CallToolResult;
}
const codeOf = (result: CallToolResult) => {
  assert.equal(result.isError, true, JSON.stringify(result));
  const [first] = result.content;
  return JSON.parse(first?.type === "text" ? first.text : "null").code;
};
const rest = async (path: string) => (await fetch(`${ctx.base}${path}`)).json();

describe("MCP exchange tools over stdio", () => {
  it("answer market data as the public REST does", async () => {
    await ctx.client.listTools();
    const ticker = await call("get_ticker", { currencyPairCode: "ETH_USDT" });
    assert.deepEqual(ticker.structuredContent, await rest("/api/tickers?currencyPairCode=ETH_USDT"));
    const book = await call("get_order_book", { currencyPairCode: "ETH_USDT" });
    assert.deepEqual(book.structuredContent, { items: await rest("/api/orderbook?currencyPairCode=ETH_USDT") });
    const pairs = await call("list_pairs");
    assert.deepEqual(pairs.structuredContent, { items: await rest("/api/currencies/pairs") });
    assert.equal(codeOf(await call("get_ticker", { currencyPairCode: "NOPE_USDT" })), "UNKNOWN_PAIR");
  });

  it("place an order once per idempotency key, list it, cancel it, and read balances", async () => {
    const tools = (await ctx.client.listTools()).tools.map((t) => t.name);
    for (const name of ["place_order", "cancel_order", "list_orders", "get_balances"]) assert.ok(tools.includes(name));
    const order = { isBid: true, currencyPairCode: "ETH_USDT", amount: "0.1", price: "20", idempotencyKey: "mcp-1" };
    const placed = await call("place_order", order);
    assert.equal(placed.isError, undefined, JSON.stringify(placed.content));
    const id = placed.structuredContent?.id;
    assert.equal(typeof id, "string");
    const again = await call("place_order", order);
    assert.equal(again.structuredContent?.id, id, "the same key answers the first order");
    const open = await call("list_orders", { status: "open" });
    assert.equal(JSON.stringify(open.structuredContent).split(String(id)).length - 1 >= 1, true);
    const balances = await call("get_balances");
    assert.match(JSON.stringify(balances.structuredContent), /USDT/);
    const cancelled = await call("cancel_order", { id });
    assert.equal(cancelled.isError, undefined, JSON.stringify(cancelled.content));
    assert.equal(codeOf(await call("cancel_order", { id })), "ORDER_NOT_OPEN");
    assert.equal(
      codeOf(await call("place_order", { isBid: true, currencyPairCode: "ETH_USDT", amount: "100000", price: "1000" })),
      "INSUFFICIENT_BALANCE",
    );
  });
});
