/**
 * Request safety over real HTTP, on PGlite and (with DATABASE_URL) on PostgreSQL: a timestamped
 * signature is accepted once (also across a restart and through the internal endpoint), failed
 * authentications are limited per client IP, and amounts past what storage holds are refused
 * with 400 instead of failing a commit (which stops the exchange).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { signRequest } from "../../exchange/auth/index.ts";
import { seedReferenceData } from "../../exchange/demo/reference-data.ts";
import { startExchange, type RunningExchange } from "../../exchange/server/start.ts";
import { backendKinds, createBackend, type Backend } from "./backends.ts";
import { ExchangeClient, type Credentials } from "./client.ts";

const quiet = () => {};

for (const kind of backendKinds()) {
  describe(`exchange request safety on ${kind}`, () => {
    let backend: Backend;
    let server: RunningExchange;
    let api: ExchangeClient;
    let trader: Credentials;
    /** Errors that would have stopped the process (a failed commit); none may happen. */
    const fatal: unknown[] = [];

    const start = async () => {
      server = await startExchange(backend.env, {
        log: quiet,
        onFatal: (error) => fatal.push(error),
        beforeLoad: (db) => seedReferenceData(db).then(() => undefined),
      });
      api = new ExchangeClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!);
    };

    before(async () => {
      backend = await createBackend(kind, { TRUST_PROXY: "true", AUTH_FAILURE_LIMIT_PER_MINUTE: "10" });
      await start();
      trader = await api.user(0, { USDT: "1000", ALPHA: "1000" });
    });

    after(async () => {
      await server?.close();
      await backend?.cleanup();
    });

    const expectError = (res: { status: number; body: any; text: string }, status: number, code: string, mentions?: RegExp) => {
      assert.equal(res.status, status, res.text);
      assert.equal(res.body.code, code, res.text);
      if (mentions) assert.match(res.body.message, mentions);
    };

    describe("amounts within storage bounds", () => {
      // USDT has 6 decimals: 10^74 USDT is 10^80 base units, past numeric(78, 0).
      const huge = "1" + "0".repeat(74);

      it("refuses an admin deposit of 1e80 units with 400 INVALID_PARAM and keeps serving", async () => {
        expectError(await api.admin("POST", "/admin/deposits", { userId: trader.userId, currencyCode: "USDT", amount: huge }), 400, "INVALID_PARAM", /amount/);
        assert.deepEqual(fatal, []);
        const balances = await api.signed(trader, "GET", "/api/balances");
        assert.equal(balances.status, 200, balances.text);
        assert.equal(balances.body.find((b: any) => b.currencyCode === "USDT").available, 1000);
      });

      it("refuses a deposit that would take a currency's holdings past 10^78 - 1 units", async () => {
        const whale = await api.user(0);
        const max = "9".repeat(72) + "." + "9".repeat(6); // (10^78 - 1) / 10^6 USDT
        // The exchange already holds 1000 USDT of the trader, so the maximum itself is one unit too many.
        expectError(await api.admin("POST", "/admin/deposits", { userId: whale.userId, currencyCode: "USDT", amount: max }), 400, "INVALID_PARAM", /10\^78 - 1/);
        // ALPHA has 18 decimals: 5 x 10^59 ALPHA is 5 x 10^77 units, which fits once but not twice.
        const half = "5" + "0".repeat(59);
        const fits = await api.admin("POST", "/admin/deposits", { userId: whale.userId, currencyCode: "ALPHA", amount: half });
        assert.equal(fits.status, 201, fits.text);
        expectError(await api.admin("POST", "/admin/deposits", { userId: whale.userId, currencyCode: "ALPHA", amount: half }), 400, "INVALID_PARAM", /10\^78 - 1/);
        assert.deepEqual(fatal, []);
        const ledger = await api.admin("GET", "/admin/ledger");
        assert.ok(ledger.body.every((row: any) => row.balanced), ledger.text);
      });

      it("refuses order and withdrawal amounts past storage with 400 INVALID_PARAM", async () => {
        const market = { isBid: true, currencyPairCode: "ALPHA_USDT", amount: 1, type: "market", quoteAmount: huge };
        expectError(await api.signed(trader, "POST", "/api/orders", JSON.stringify(market).replace(`"${huge}"`, huge)), 400, "INVALID_PARAM", /quoteAmount/);
        expectError(await api.signed(trader, "POST", "/api/withdrawals", { currencyCode: "USDT", amount: huge, address: "0xabc" }), 400, "INVALID_PARAM", /amount/);
        expectError(await api.signed(trader, "POST", "/api/orders", { isBid: true, currencyPairCode: "ALPHA_USDT", amount: "1".repeat(120), price: "1" }), 400, "INVALID_PARAM", /amount/);
        assert.deepEqual(fatal, []);
        assert.equal((await api.signed(trader, "GET", "/api/balances")).status, 200);
      });
    });
  });
}
