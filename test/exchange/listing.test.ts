/**
 * Spawned agent tokens listed over real HTTP, on PGlite and (with DATABASE_URL) on PostgreSQL: the
 * exchange follows an ecosystem API's spawn stream and token list (a fake one here) and lists
 * each new token as `<SYMBOL>` and `<SYMBOL>_USDT` within seconds; the pair shows in
 * /api/currencies, /api/currencies/pairs and the aggregator's /asset and takes orders. It starts
 * on the demo's base market, as `npm start` does: a token spawned before it started (ALPHA) is
 * listed like any other, and a symbol of another currency (USDT) is refused. After a restart
 * with the ecosystem API down, the listing and its book are still there.
 */
import assert from "node:assert/strict";
import { createServer, type Server, type ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, it } from "vitest";
import { seedDemoBeforeLoad } from "../../exchange/demo/reference-data.ts";
import { type RunningExchange, startExchange } from "../../exchange/server/start.ts";
import { type Backend, backendKinds, createBackend } from "../../support/exchange/backends.ts";
import { SigningClient } from "../../support/exchange/signing-client.ts";

/** The ecosystem API's token list (newest first) and spawn stream; `down` answers 503. */
async function fakeEcosystemApi() {
  const tokens: { address: string; symbol: string; name: string; spawnedAt: number }[] = [];
  const state = { down: false, calls: 0 };
  const streams = new Set<ServerResponse>();
  const server: Server = createServer((request, response) => {
    state.calls++;
    const url = new URL(request.url ?? "/", "http://localhost");
    if (!state.down && url.pathname === "/api/launchpad/stream") {
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      response.write("retry: 2000\n\n");
      streams.add(response);
      request.on("close", () => streams.delete(response));
      return;
    }
    if (state.down || url.pathname !== "/api/launchpad/tokens") {
      response.writeHead(state.down ? 503 : 404, { "content-type": "application/json" });
      response.end(JSON.stringify({ code: "UNAVAILABLE", message: "down" }));
      return;
    }
    const page = Number(url.searchParams.get("page") ?? 1);
    const pageSize = Number(url.searchParams.get("pageSize") ?? 20);
    const items = tokens.slice((page - 1) * pageSize, page * pageSize);
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ items, page, pageSize, totalItems: tokens.length }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    spawn(symbol: string, address: string) {
      const token = { address, symbol, name: `${symbol} Agent`, spawnedAt: Math.floor(Date.now() / 1000) };
      tokens.unshift(token);
      for (const stream of streams) stream.write(`event: spawn\ndata: ${JSON.stringify({ token })}\n\n`);
    },
    close: () => {
      for (const stream of streams) stream.end();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const ZETA = `0x${"5e".repeat(20)}`;

for (const kind of backendKinds()) {
  describe(`spawned tokens listed on ${kind}`, () => {
    let backend: Backend;
    let server: RunningExchange;
    let ecosystem: Awaited<ReturnType<typeof fakeEcosystemApi>>;
    let api: SigningClient;
    const logs: string[] = [];

    const start = async () => {
      server = await startExchange(
        { ...backend.env, ECOSYSTEM_API_URL: ecosystem.url },
        { log: (line) => logs.push(line), beforeLoad: seedDemoBeforeLoad },
      );
      api = new SigningClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!, { timeoutMs: 10_000 });
    };
    const get = async (path: string) => {
      const response = await fetch(`${server.url}${path}`, { signal: AbortSignal.timeout(10_000) });
      assert.equal(response.status, 200, path);
      return response.json();
    };
    const pairCodes = async () =>
      ((await get("/api/currencies/pairs")) as { currencyPairCode?: string; code?: string }[]).map(
        (pair) => pair.currencyPairCode ?? pair.code,
      );
    const waitFor = async (what: string, check: () => Promise<boolean>, timeoutMs = 10_000) => {
      const end = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    beforeAll(async () => {
      backend = await createBackend(kind);
      ecosystem = await fakeEcosystemApi();
      ecosystem.spawn("ALPHA", `0x${"a1".repeat(20)}`);
      ecosystem.spawn("USDT", `0x${"bb".repeat(20)}`);
      await start();
      await server.listing!.caughtUp;
    });

    afterAll(async () => {
      await server?.close();
      await ecosystem?.close();
      await backend?.cleanup();
    });

    it("lists a token spawned while it runs within seconds, and it trades", async () => {
      const started = Date.now();
      ecosystem.spawn("ZETA", ZETA);
      await waitFor("ZETA_USDT in /api/currencies/pairs", async () => (await pairCodes()).includes("ZETA_USDT"));
      assert.ok(Date.now() - started < 2_000, "listed from the spawn stream, within a second or so");
      assert.ok(((await get("/api/currencies")) as string[]).includes("ZETA"));
      const asset = (await get("/api/marketdata/getaggregator/asset")) as Record<string, { can_deposit: boolean }>;
      assert.equal(asset.ZETA?.can_deposit, true);

      const seller = await api.user(0, { ZETA: "100" });
      const buyer = await api.user(0, { USDT: "100" });
      const ask = await api.signed(seller, "POST", "/api/orders", {
        currencyPairCode: "ZETA_USDT",
        isBid: false,
        amount: "10",
        price: "1.5",
      });
      assert.equal(ask.status, 201, ask.text);
      const bid = await api.signed(buyer, "POST", "/api/orders", {
        currencyPairCode: "ZETA_USDT",
        isBid: true,
        amount: "4",
        price: "1.5",
      });
      assert.equal(bid.status, 201, bid.text);
      assert.equal(bid.body.status ?? bid.body.order?.status, "filled", bid.text);
    });

    it("lists a token spawned before it started like any other, and refuses a symbol held by another currency", async () => {
      const codes = await pairCodes();
      assert.ok(!codes.includes("USDT_USDT"));
      assert.ok(codes.includes("ALPHA_USDT"));
      assert.equal(server.exchange.reference.pair("ALPHA_USDT").row.quote, "USDT");
      assert.ok(
        logs.some((line) => line.includes("not listing") && line.includes("SYMBOL_TAKEN")),
        logs.join("\n"),
      );
      assert.equal(server.exchange.reference.currency("USDT").row.name, "Tether USD");
      assert.equal(server.exchange.reference.currency("ALPHA").row.contractAddress, `0x${"a1".repeat(20)}`);
    });

    it("keeps the listing and its book across a restart, with the ecosystem API down", async () => {
      const book = await get("/api/orderbook?currencyPairCode=ZETA_USDT");
      await server.close();
      ecosystem.state.down = true;
      await start();
      assert.ok((await pairCodes()).includes("ZETA_USDT"));
      assert.deepEqual(await get("/api/orderbook?currencyPairCode=ZETA_USDT"), book);
      await waitFor("a logged failure of the ecosystem API", async () =>
        logs.some((line) => line.includes("answered 503")),
      );
      ecosystem.state.down = false;
      await server.listing!.caughtUp;
      const codes = await pairCodes();
      assert.equal(codes.filter((code) => code === "ZETA_USDT").length, 1);
    });
  });
}
