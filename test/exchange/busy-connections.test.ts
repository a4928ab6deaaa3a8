/**
 * Busy connections are not a lost database. Reads that hold every pooled connection (here: stuck behind
 * a table lock taken from outside) make the next read wait past EXCHANGE_DB_CONNECT_TIMEOUT_MS:
 * that read alone gets 503, while the exchange stays ready and keeps committing orders on its
 * own connection. Runs only with DATABASE_URL (PGlite has one connection and no pg connection pool).
 */
import assert from "node:assert/strict";
import { afterAll, describe, it } from "vitest";
import pg from "pg";
import { seedFixtureBeforeLoad } from "../../support/exchange/fixture-market.ts";
import { startExchange, type RunningExchange } from "../../exchange/server/start.ts";
import { DB_DEFAULTS } from "../../exchange/adapters/store/index.ts";
import { createBackend, type Backend } from "../../support/exchange/backends.ts";
import { waitFor } from "../../support/wait.ts";
import { SigningClient } from "../../support/exchange/signing-client.ts";

describe("exchange with every pooled connection busy", {
  skip: !process.env.DATABASE_URL /* needs DATABASE_URL */,
}, () => {
  let backend: Backend | undefined;
  let server: RunningExchange | undefined;
  let locker: pg.Client | undefined;
  let watcher: pg.Client | undefined;
  afterAll(async () => {
    await locker?.query("rollback").catch(() => {});
    await locker?.end();
    await watcher?.end();
    await server?.close();
    await backend?.cleanup();
  });

  it("answers the read that found no free connection 503 and stays ready, taking orders", async () => {
    backend = await createBackend("postgres", {
      EXCHANGE_DB_CONNECT_TIMEOUT_MS: "300",
      EXCHANGE_DB_QUERY_TIMEOUT_MS: "20000",
    });
    server = await startExchange(backend.env, {
      log: () => {},
      beforeLoad: seedFixtureBeforeLoad,
    });
    const running = server;
    const api = new SigningClient(running.url, backend.env.EXCHANGE_ADMIN_TOKEN!);
    const trader = await api.user(0, { USDT: "1000", ALPHA: "1000" });

    // Withdrawals are read by GET /api/withdrawals and not written by orders: locking the table
    // holds every read of it on its connection without touching what an order commits.
    const schema = backend.env.EXCHANGE_DB_SCHEMA;
    locker = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await locker.connect();
    await locker.query("begin");
    await locker.query(`lock table "${schema}".withdrawals in access exclusive mode`);
    // Watched from another session: inside the locker's transaction, pg_stat_activity is a snapshot.
    watcher = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await watcher.connect();
    const blocked = async () => {
      const [row] = (
        await watcher!.query<{ n: number }>(
          "select count(*)::int as n from pg_stat_activity where application_name like $1 and wait_event_type = 'Lock'",
          [`${`exchange ${schema}`.slice(0, 40)} %`],
        )
      ).rows;
      return row!.n;
    };
    const connections = DB_DEFAULTS.maxConnections;
    const stuck = Array.from({ length: connections }, () => api.signed(trader, "GET", "/api/withdrawals"));
    await waitFor(`${connections} reads waiting on the lock`, async () => (await blocked()) === connections, {
      timeoutMs: 10_000,
      intervalMs: 20,
    });

    const started = Date.now();
    const refused = await api.signed(trader, "GET", "/api/withdrawals");
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.body.code, "UNAVAILABLE");
    assert.ok(Date.now() - started < 5_000, "refused within about the connect timeout");

    const ready = await fetch(`${running.url}/api/ready`);
    assert.equal(ready.status, 200, `busy connections are not an outage: ${await ready.text()}`);
    assert.equal(running.exchange.ready, true);
    const order = await api.signed(trader, "POST", "/api/orders", {
      isBid: true,
      currencyPairCode: "ALPHA_USDT",
      amount: "10",
      price: "0.1",
    });
    assert.equal(
      order.status,
      201,
      `orders commit on their own connection while reads hold every pooled connection: ${order.text}`,
    );

    await locker.query("rollback");
    for (const read of await Promise.all(stuck)) assert.equal(read.status, 200, read.text);
    const open = await api.signed(trader, "GET", "/api/orders?status=open");
    assert.equal(open.body.totalItems, 1, open.text);
  });
});
