/**
 * Nothing acknowledged is lost: orders stream in from several users, the server is SIGKILLed in
 * the middle, and after a restart from the same database every acknowledged order and fill is
 * there, every currency reconciles (holdings + fees = deposits - withdrawals) and the rebuilt
 * book is not crossed. Runs the real server process on PGlite and (with DATABASE_URL) Postgres.
 */
import { setTimeout as sleep } from "node:timers/promises";
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { afterAll, describe, it } from "vitest";
import { mulberry32 } from "../../lib/random.ts";
import { freePort } from "../../support/net/free-port.ts";
import { backendKinds, createBackend, type Backend } from "../../support/exchange/backends.ts";
import { seedFixtureMarketFor } from "../../support/exchange/fixture-market.ts";
import { startExchangeProcess } from "../../support/exchange/process.ts";
import { SigningClient, type Credentials } from "../../support/exchange/signing-client.ts";

const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 100_000);
console.log(`# CRASH_SEED=${SEED}`);

for (const kind of backendKinds()) {
  describe(`crash recovery on ${kind}`, () => {
    let backend: Backend | undefined;
    let child: ChildProcess | undefined;
    afterAll(async () => {
      child?.kill("SIGKILL");
      await backend?.cleanup();
    });

    it("keeps every acknowledged order and fill across a SIGKILL, and the ledger reconciles", async () => {
      backend = await createBackend(kind);
      const port = await freePort();
      const vars = {
        ...backend.vars,
        EXCHANGE_PORT: String(port),
        EXCHANGE_DEMO: "true",
        DATABASE_URL: backend.vars.DATABASE_URL ?? "",
      };
      // The demo market has no agent tokens until a chain's are listed: ALPHA_USDT is the fixture's.
      await seedFixtureMarketFor(vars);
      ({ child } = await startExchangeProcess(port, vars));
      const api = new SigningClient(`http://127.0.0.1:${port}`, backend.vars.EXCHANGE_ADMIN_TOKEN);
      const users: Credentials[] = [];
      for (let i = 0; i < 4; i++) users.push(await api.user(0, { ALPHA: "100000", USDT: "100000" }));

      const random = mulberry32(SEED);
      const acked: { user: Credentials; id: string; filled: number; dealIds: string[] }[] = [];
      let killed = false;
      let sent = 0;
      const worker = async () => {
        while (!killed) {
          const user = users[Math.floor(random() * users.length)];
          const body = {
            isBid: random() < 0.5,
            currencyPairCode: "ALPHA_USDT",
            amount: 2 + Math.floor(random() * 19), // 2 x 0.90 is above the pair's 1 USDT minimum
            price: (0.9 + Math.floor(random() * 21) / 100).toFixed(2),
          };
          sent++;
          try {
            const res = await api.signed(user, "POST", "/api/orders", body);
            if (res.status === 201)
              acked.push({
                user,
                id: res.body.id,
                filled: res.body.filledAmount,
                dealIds: res.body.fills.map((f: any) => f.dealId),
              });
          } catch {
            // the connection died with the server: not acknowledged
          }
        }
      };
      const workers = Array.from({ length: 8 }, worker);
      while (acked.length < 300) await sleep(20);
      child.kill("SIGKILL");
      killed = true;
      await Promise.all(workers);
      console.log(`# ${sent} orders sent, ${acked.length} acknowledged before the kill`);

      ({ child } = await startExchangeProcess(port, {
        ...backend.vars,
        EXCHANGE_PORT: String(port),
        EXCHANGE_DEMO: "true",
        DATABASE_URL: backend.vars.DATABASE_URL ?? "",
      }));
      for (const order of acked) {
        const res = await api.signed(order.user, "GET", `/api/orders/${order.id}`);
        assert.equal(res.status, 200, `acknowledged order ${order.id} is gone: ${res.text}`);
        assert.ok(res.body.filledAmount >= order.filled, `order ${order.id} lost fills`);
        const dealIds = new Set(res.body.fills.map((f: any) => f.dealId));
        for (const dealId of order.dealIds)
          assert.ok(dealIds.has(dealId), `deal ${dealId} of order ${order.id} is gone`);
      }
      const ledger = await api.admin("GET", "/admin/ledger");
      for (const row of ledger.body)
        assert.equal(row.balanced, true, `${row.currencyCode} does not reconcile: ${JSON.stringify(row)}`);

      const open: any[] = [];
      for (const user of users) {
        for (let page = 1; ; page++) {
          const res = await api.signed(user, "GET", `/api/orders?status=open&pageSize=100&pageNumber=${page}`);
          open.push(...res.body.items);
          if (page * 100 >= res.body.totalItems) break;
        }
      }
      const bestBid = Math.max(...open.filter((o: any) => o.isBid).map((o: any) => Number(o.price)));
      const bestAsk = Math.min(...open.filter((o: any) => !o.isBid).map((o: any) => Number(o.price)));
      assert.ok(bestBid < bestAsk, `the rebuilt book is crossed: bid ${bestBid} >= ask ${bestAsk}`);
      // And it still trades: a crossing order against the rebuilt book fills.
      if (Number.isFinite(bestAsk)) {
        const take = await api.signed(users[0], "POST", "/api/orders", {
          isBid: true,
          currencyPairCode: "ALPHA_USDT",
          amount: 2,
          price: bestAsk.toFixed(2),
          timeInForce: "IOC",
        });
        assert.equal(take.status, 201, take.text);
      }
      child.kill("SIGTERM");
    });
  });
}
