import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { signRequest } from "../../exchange/adapters/auth/index.ts";
import type { Fetcher } from "../http-client.ts";
import { createMcpServer } from "../server.ts";

const keys = { publicKey: "pk_test", privateKey: "sk_test" };
const EXCHANGE = "http://exchange.test";
const ECOSYSTEM = "http://ecosystem.test";
const ORDER_ID = "0b7c9c53-3f37-4f0e-9a55-4c0e3d1b8a11";

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

async function connect(exchangeKeys?: typeof keys) {
  const sent: { url: string; method: string; headers: Headers; body?: string }[] = [];
  const fetch: Fetcher = async (url, init) => {
    const headers = new Headers(init?.headers);
    sent.push({ url, method: init?.method ?? "GET", headers, body: init?.body as string | undefined });
    if (init?.method === "DELETE") return Response.json({ code: "ORDER_NOT_OPEN", message: "filled" }, { status: 409 });
    if (url.endsWith("/api/balances")) return Response.json([{ currencyCode: "USDT", available: "10" }]);
    return Response.json({ id: ORDER_ID, status: "open" }, { status: 201 });
  };
  const server = createMcpServer(
    {
      ecosystem: { fetch, base: ECOSYSTEM },
      exchange: { fetch, base: EXCHANGE },
      feeds: { subscribe: () => () => {}, close() {} },
      specPath: "/nonexistent",
      timeoutMs: 1_000,
    },
    { callsPerMinute: 100, exchangeKeys },
  );
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "t", version: "0" });
  clients.push(client);
  await client.connect(b);
  return { client, sent };
}
const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

describe("exchange write tools", () => {
  it("are listed only with a key pair", async () => {
    const without = (await (await connect()).client.listTools()).tools.map((t) => t.name);
    const withKeys = (await (await connect(keys)).client.listTools()).tools.map((t) => t.name);
    const writes = ["cancel_order", "get_balances", "list_orders", "place_order", "propose", "spawn_token", "vote"];
    expect(without.filter((n) => writes.includes(n))).toEqual([]);
    expect(withKeys.filter((n) => writes.includes(n)).sort()).toEqual(writes);
  });

  it("place a signed, timestamped order, the idempotency key as clientOrderId", async () => {
    const { client, sent } = await connect(keys);
    await client.listTools();
    const result = await call(client, "place_order", {
      isBid: true,
      currencyPairCode: "ETH_USDT",
      amount: "0.5",
      price: "2000",
      idempotencyKey: "agent-1:order-7",
    });
    expect(result.structuredContent).toEqual({ id: ORDER_ID, status: "open" });
    const [request] = sent;
    expect(request?.url).toBe(`${EXCHANGE}/api/orders`);
    expect(JSON.parse(request?.body ?? "{}")).toEqual({
      isBid: true,
      currencyPairCode: "ETH_USDT",
      amount: "0.5",
      price: "2000",
      clientOrderId: "agent-1:order-7",
    });
    const timestamp = Number(request?.headers.get("api-timestamp"));
    expect(timestamp).toBeGreaterThan(0);
    const expected = signRequest({ ...keys, method: "POST", url: request!.url, body: request?.body, timestamp });
    expect(request?.headers.get("api-signature")).toBe(expected["API-Signature"]);
    expect(request?.headers.get("api-publickey")).toBe("pk_test");
  });

  it("vote through the ecosystem API, signed, with the Idempotency-Key header", async () => {
    const { client, sent } = await connect(keys);
    const result = await call(client, "vote", { tokenId: "4", proposalId: "2", vote: "yes", idempotencyKey: "k-1" });
    expect(result.structuredContent).toEqual({ id: ORDER_ID, status: "open" });
    const [request] = sent;
    expect(request?.url).toBe(`${ECOSYSTEM}/api/agents/workers/4/vote`);
    expect(request?.headers.get("idempotency-key")).toBe("k-1");
    expect(JSON.parse(request?.body ?? "{}")).toEqual({ proposalId: "2", vote: "yes" });
    const timestamp = Number(request?.headers.get("api-timestamp"));
    const expected = signRequest({ ...keys, method: "POST", url: request!.url, body: request?.body, timestamp });
    expect(request?.headers.get("api-signature")).toBe(expected["API-Signature"]);
  });

  it("pass the exchange's refusal code on, and wrap list answers", async () => {
    const { client, sent } = await connect(keys);
    const refused = await call(client, "cancel_order", { id: ORDER_ID });
    expect(refused.isError).toBe(true);
    expect(JSON.parse((refused.content[0] as { text: string }).text)).toEqual({
      code: "ORDER_NOT_OPEN",
      message: "filled",
    });
    expect(sent[0]?.method).toBe("DELETE");
    const balances = await call(client, "get_balances");
    expect(balances.structuredContent).toEqual({ items: [{ currencyCode: "USDT", available: "10" }] });
    const bad = await call(client, "place_order", { isBid: true, currencyPairCode: "eth", amount: "1" });
    expect(JSON.parse((bad.content[0] as { text: string }).text).code).toBe("INVALID_PARAM");
  });
});
