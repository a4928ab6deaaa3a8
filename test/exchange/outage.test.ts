/**
 * The exchange survives a hung or lost database. PostgreSQL sits behind a TCP proxy that
 * blackholes traffic (no RST, sockets stay open) and later restores it, or resets every
 * connection first. While it is away: a write answers 503 UNAVAILABLE within the commit timeout,
 * the unacknowledged order never shows in the public book, balances or open orders, reads keep
 * being served, and 3,000 more orders are refused without memory growing. When it is back the
 * exchange carries on by itself: new orders trade, every acknowledged order is stored exactly
 * once, the ledger reconciles and the committed view equals the database.
 * Runs only with DATABASE_URL (PGlite has no network to lose).
 */
import assert from "node:assert/strict";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, describe, it } from "vitest";
import { TcpProxy } from "../../support/net/tcp-proxy.ts";
import { seedFixtureBeforeLoad } from "../../support/exchange/fixture-market.ts";
import { startExchange, type RunningExchange } from "../../exchange/server/start.ts";
import { CommittedView } from "../../exchange/application/index.ts";
import { loadState, openDb } from "../../exchange/adapters/store/index.ts";
import { createBackend, type Backend } from "../../support/exchange/backends.ts";
import { waitFor } from "../../support/wait.ts";
import { SigningClient, type Answer, type Credentials } from "../../support/exchange/signing-client.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const COMMIT_TIMEOUT_MS = 1_500;
const QUEUE_MAX = 200;
const PAIR = "ALPHA_USDT";

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const expectUnavailable = (res: Answer, what: string) => {
  assert.equal(res.status, 503, `${what}: ${res.text}`);
  assert.equal(res.body.code, "UNAVAILABLE", `${what}: ${res.text}`);
  assert.equal(typeof res.body.message, "string");
};

const variants = [
  { name: "blackholed, then restored", heal: (proxy: TcpProxy) => proxy.restore() },
  {
    name: "blackholed, then every connection reset, then restored",
    heal: (proxy: TcpProxy) => {
      proxy.reset();
      proxy.restore();
    },
  },
];

describe("exchange with PostgreSQL behind a failing network", {
  skip: !process.env.DATABASE_URL /* needs DATABASE_URL */,
}, () => {
  for (const variant of variants) {
    describe(variant.name, () => {
      let backend: Backend | undefined;
      let proxy: TcpProxy | undefined;
      let server: RunningExchange | undefined;
      afterAll(async () => {
        proxy?.restore();
        await server?.close();
        await proxy?.close();
        await backend?.cleanup();
      });

      it("refuses writes with 503 while it is away, shows only committed state, and carries on by itself", async () => {
        const target = new URL(process.env.DATABASE_URL!);
        proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
        const viaProxy = new URL(target);
        viaProxy.hostname = "127.0.0.1";
        viaProxy.port = String(proxy.port);
        backend = await createBackend("postgres", {
          DATABASE_URL: viaProxy.href,
          EXCHANGE_DB_CONNECT_TIMEOUT_MS: "1000",
          EXCHANGE_DB_QUERY_TIMEOUT_MS: "1500",
          EXCHANGE_COMMIT_TIMEOUT_MS: String(COMMIT_TIMEOUT_MS),
          EXCHANGE_COMMIT_QUEUE_MAX: String(QUEUE_MAX),
        });
        server = await startExchange(backend.env, {
          log: () => {},
          beforeLoad: seedFixtureBeforeLoad,
          recoveryDelayMs: { min: 50, max: 500 },
        });
        const running = server;
        const api = new SigningClient(running.url, backend.env.EXCHANGE_ADMIN_TOKEN!);
        const seller = await api.user(0, { ALPHA: "1000", USDT: "1000" });
        const buyer = await api.user(0, { ALPHA: "1000", USDT: "1000" });
        const taker = await api.user(0, { ALPHA: "1000" });
        const acked: { who: Credentials; id: string }[] = [];
        const place = async (who: Credentials, body: object) => {
          const res = await api.signed(who, "POST", "/api/orders", body);
          if (res.status === 201) acked.push({ who, id: res.body.id });
          return res;
        };

        // Normal trading: a resting ask, a bid that takes part of it, a resting bid.
        assert.equal(
          (await place(seller, { isBid: false, currencyPairCode: PAIR, amount: 10, price: "1.10" })).status,
          201,
        );
        const fill = await place(buyer, { isBid: true, currencyPairCode: PAIR, amount: 4, price: "1.10" });
        assert.equal(fill.status, 201, fill.text);
        assert.equal(fill.body.fills.length, 1);
        assert.equal(
          (await place(buyer, { isBid: true, currencyPairCode: PAIR, amount: 5, price: "0.90" })).status,
          201,
        );

        const publicBook = async () => (await fetch(`${running.url}/api/orderbook?currencyPairCode=${PAIR}`)).text();
        const aggregatorBook = async () => {
          const body = (await (
            await fetch(`${running.url}/api/marketdata/getaggregator/orderbook?ticker_id=${PAIR}`)
          ).json()) as { bids: unknown; asks: unknown };
          return JSON.stringify({ bids: body.bids, asks: body.asks });
        };
        const ticker = async () => {
          const body = (await (await fetch(`${running.url}/api/tickers?currencyPairCode=${PAIR}`)).json()) as {
            bidPrice: unknown;
            askPrice: unknown;
          };
          return JSON.stringify({ bid: body.bidPrice, ask: body.askPrice });
        };
        const signedRead = async (who: Credentials, path: string) => {
          const res = await api.signed(who, "GET", path);
          assert.equal(res.status, 200, `${path} while the database is away: ${res.text}`);
          return res.text;
        };
        const visible = async () => ({
          book: await publicBook(),
          aggregator: await aggregatorBook(),
          ticker: await ticker(),
          balances: await signedRead(seller, "/api/balances"),
          open: await signedRead(seller, "/api/orders?status=open"),
        });
        const before = await visible();
        assert.equal((await fetch(`${running.url}/api/ready`)).status, 200);

        // The database goes away. The next order (a new best bid that also locks USDT) hangs in
        // its commit: while it waits, nothing of it may be visible. (Without a clientOrderId: with
        // one, the lookup of an earlier order with that id would be what hangs, before the book.)
        proxy.blackhole();
        const started = Date.now();
        const hung = api.signed(seller, "POST", "/api/orders", {
          isBid: true,
          currencyPairCode: PAIR,
          amount: 7,
          price: "1.00",
        });
        await waitFor("the order to wait for its commit", async () => running.committer.pending > 0, {
          timeoutMs: 30_000,
          intervalMs: 50,
        });
        assert.deepEqual(await visible(), before, "an order waiting for its commit is visible");
        const answer = await hung;
        const elapsed = Date.now() - started;
        expectUnavailable(answer, "the order whose commit hung");
        assert.match(
          answer.body.message,
          /outcome is unknown.*clientOrderId/,
          "the message tells the client the outcome is unknown and how to learn it",
        );
        assert.ok(elapsed < COMMIT_TIMEOUT_MS + 2_000, `the hung order was answered after ${elapsed} ms`);
        assert.deepEqual(await visible(), before, "a refused order is visible");
        expectUnavailable(await api.signed(seller, "GET", "/api/ready"), "/api/ready");
        const health = await fetch(`${running.url}/api/healthcheck`);
        assert.equal(health.status, 200, "liveness does not depend on the database");
        await health.text();

        // 3,000 more orders (and other writes) are refused at once; nothing queues, memory stays flat.
        // The heap is measured from after a warm-up (JIT, connection pools), so what is left is growth per request.
        let heapBefore = 0;
        let refused = 0;
        let maxPending = 0;
        for (let batch = 0; batch < 60; batch++) {
          const answers = await Promise.all(
            Array.from({ length: 50 }, (_, i) =>
              api.signed(batch % 2 === 0 ? seller : buyer, "POST", "/api/orders", {
                isBid: i % 2 === 0,
                currencyPairCode: PAIR,
                amount: 2,
                price: i % 2 === 0 ? "0.95" : "1.20",
                ...(i % 5 === 0 ? { clientOrderId: `outage-${batch}-${i}` } : {}),
              }),
            ),
          );
          for (const res of answers) {
            expectUnavailable(res, "an order during the outage");
            refused++;
          }
          maxPending = Math.max(maxPending, running.committer.pending);
          if (batch === 9) heapBefore = heapAfterGc();
        }
        const heapGrowth = heapAfterGc() - heapBefore;
        console.log(
          `# ${refused} orders refused during the outage; heap growth over the last 2,500: ${(heapGrowth / 1e6).toFixed(2)} MB; most pending commits ${maxPending}`,
        );
        assert.equal(refused, 3_000);
        assert.equal(maxPending, 0, "nothing waits for a database that is away");
        // The issue measured 55 kB of RSS per order held behind the hung commit. The bound allows
        // 3.2 kB per refused order: above the noise seen here (0 to 1.9 MB over the 2,500, from
        // the probe's connection attempts), far below any kept request or unit.
        assert.ok(heapGrowth < 8e6, `heap grew by ${heapGrowth} bytes over 2,500 refused orders`);
        expectUnavailable(await api.signed(buyer, "DELETE", `/api/orders?currencyPairCode=${PAIR}`), "cancel-all");
        expectUnavailable(
          await api.signed(buyer, "POST", "/api/withdrawals", { currencyCode: "USDT", amount: 10, address: "0xabc" }),
          "a withdrawal",
        );
        expectUnavailable(
          await api.admin("POST", "/admin/deposits", { userId: buyer.userId, currencyCode: "USDT", amount: "1" }),
          "a deposit",
        );
        const refusedOrder = {
          isBid: true,
          currencyPairCode: PAIR,
          amount: 2,
          price: "0.91",
          clientOrderId: "refused-during-outage",
        };
        expectUnavailable(
          await api.signed(buyer, "POST", "/api/orders", refusedOrder),
          "an order with a clientOrderId",
        );
        assert.deepEqual(await visible(), before, "reads during the outage show the committed state");

        // The database comes back: the exchange notices by itself and takes orders again.
        variant.heal(proxy);
        await waitFor(
          "/api/ready to answer 200",
          async () => (await fetch(`${running.url}/api/ready`)).status === 200,
          { timeoutMs: 30_000, intervalMs: 50 },
        );

        // A refused order was not placed: its retry places it, once.
        const retry = await place(buyer, refusedOrder);
        assert.equal(retry.status, 201, retry.text);
        const again = await api.signed(buyer, "POST", "/api/orders", refusedOrder);
        assert.equal(again.status, 200, again.text);
        assert.equal(again.body.id, retry.body.id);

        // It trades: a sell that crosses the best bid fills at once.
        const take = await place(taker, {
          isBid: false,
          currencyPairCode: PAIR,
          amount: 3,
          price: "0.90",
          timeInForce: "IOC",
        });
        assert.equal(take.status, 201, take.text);
        assert.ok(take.body.fills.length > 0, "the order after recovery traded");

        // Every acknowledged order is stored exactly once, nothing else is.
        const stored: string[] = [];
        for (const who of [seller, buyer, taker]) {
          for (let page = 1; ; page++) {
            const res = await api.signed(who, "GET", `/api/orders?status=all&pageSize=100&pageNumber=${page}`);
            assert.equal(res.status, 200, res.text);
            stored.push(...res.body.items.map((o: { id: string }) => o.id));
            if (page * 100 >= res.body.totalItems) break;
          }
        }
        assert.equal(new Set(stored).size, stored.length, "an order is stored twice");
        // The hung order's outcome was unknown: its statement may have reached the server when the
        // network healed (then it is stored, once), or not. Nothing else unacknowledged is stored.
        const ackedIds = new Set(acked.map((o) => o.id));
        const unacked = stored.filter((id) => !ackedIds.has(id));
        assert.ok(unacked.length <= 1, `unacknowledged orders stored: ${unacked}`);
        for (const id of unacked) {
          const res = await api.signed(seller, "GET", `/api/orders/${id}`);
          assert.equal(res.status, 200, `an unacknowledged order that is not the hung one: ${res.text}`);
          assert.deepEqual(
            [res.body.price, res.body.amount],
            [1, 7],
            `an unacknowledged order that is not the hung one: ${res.text}`,
          );
        }
        console.log(`# the hung order was ${unacked.length === 1 ? "stored when the network healed" : "not stored"}`);
        for (const id of ackedIds) assert.ok(stored.includes(id), `acknowledged order ${id} is missing`);
        for (const order of acked)
          assert.equal((await api.signed(order.who, "GET", `/api/orders/${order.id}`)).status, 200);

        const ledger = await api.admin("GET", "/admin/ledger");
        for (const row of ledger.body)
          assert.equal(row.balanced, true, `${row.currencyCode} does not reconcile: ${JSON.stringify(row)}`);
        const direct = await openDb({
          databaseUrl: process.env.DATABASE_URL,
          dataDir: "",
          schema: backend.env.EXCHANGE_DB_SCHEMA,
        });
        try {
          assert.deepEqual(
            running.exchange.committed.describe(),
            CommittedView.of(await loadState(direct)).describe(),
            "the committed view differs from the database",
          );
        } finally {
          await direct.close();
        }
      });
    });
  }
});
