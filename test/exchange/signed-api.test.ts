/**
 * The exchange's signed trading and wallet API over real HTTP, on PGlite and (with DATABASE_URL)
 * on PostgreSQL: accounts and keys, the signature scheme and its replay protection, orders and
 * deals with fees and balances that add up, validation codes, idempotency, withdrawals, user
 * commissions, the internal verification endpoint, and a restart that rebuilds the books.
 */
import assert from "node:assert/strict";
import { afterAll, beforeAll, describe, it } from "vitest";
import { signRequest } from "../../exchange/adapters/auth/index.ts";
import { seedFixtureBeforeLoad } from "../../support/exchange/fixture-market.ts";
import { startExchange, type RunningExchange } from "../../exchange/server/start.ts";
import { openDb } from "../../exchange/adapters/store/index.ts";
import { backendKinds, createBackend, type Backend } from "../../support/exchange/backends.ts";
import { SigningClient, type Credentials } from "../../support/exchange/signing-client.ts";

const quiet = () => {};

for (const kind of backendKinds()) {
  describe(`exchange trading API on ${kind}`, () => {
    let backend: Backend;
    let server: RunningExchange;
    let api: SigningClient;
    let seller: Credentials;
    let buyer: Credentials;
    let vip: Credentials;

    const start = async () => {
      server = await startExchange(backend.env, {
        log: quiet,
        beforeLoad: seedFixtureBeforeLoad,
      });
      api = new SigningClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!);
    };

    beforeAll(async () => {
      backend = await createBackend(kind);
      await start();
      seller = await api.user(0, { ALPHA: "100", USDT: "50" });
      buyer = await api.user(0, { USDT: "100" });
      vip = await api.user(25, { USDT: "1000", ALPHA: "1000", ETH: "2" }, "0x00000000000000000000000000000000000000AA");
    });

    afterAll(async () => {
      await server?.close();
      await backend?.cleanup();
    });

    const balance = async (who: Credentials, currency: string) => {
      const res = await api.signed(who, "GET", "/api/balances");
      assert.equal(res.status, 200, res.text);
      const row = res.body.find((b: any) => b.currencyCode === currency);
      return { available: String(row.available), locked: String(row.locked) };
    };
    const expectError = (
      res: { status: number; body: any; text: string },
      status: number,
      code: string,
      mentions?: string,
    ) => {
      assert.equal(res.status, status, res.text);
      assert.equal(res.body.code, code, res.text);
      assert.equal(typeof res.body.message, "string");
      if (mentions) assert.match(res.body.message, new RegExp(mentions));
    };

    describe("admin", () => {
      it("refuses a missing or wrong admin token", async () => {
        const res = await fetch(`${server.url}/admin/users`, { method: "POST", body: JSON.stringify({ level: 1 }) });
        assert.equal(res.status, 401);
        assert.equal(((await res.json()) as any).code, "UNAUTHORIZED");
        const wrong = await fetch(`${server.url}/admin/users`, {
          method: "POST",
          headers: { authorization: "Bearer nope" },
          body: "{}",
        });
        assert.equal(wrong.status, 401);
      });

      it("credits deposits exactly and refuses bad ones", async () => {
        assert.deepEqual(await balance(seller, "ALPHA"), { available: "100", locked: "0" });
        expectError(
          await api.admin("POST", "/admin/deposits", { userId: seller.userId, currencyCode: "NOPE", amount: "1" }),
          400,
          "UNKNOWN_CURRENCY",
        );
        expectError(
          await api.admin("POST", "/admin/deposits", {
            userId: seller.userId,
            currencyCode: "USDT",
            amount: "1.0000001",
          }),
          400,
          "INVALID_PARAM",
          "amount",
        );
        const once = await api.admin("POST", "/admin/deposits", {
          userId: buyer.userId,
          currencyCode: "ETH",
          amount: "0.5",
          depositId: "tx-1",
        });
        assert.equal(once.status, 201, once.text);
        expectError(
          await api.admin("POST", "/admin/deposits", {
            userId: buyer.userId,
            currencyCode: "ETH",
            amount: "0.5",
            depositId: "tx-1",
          }),
          409,
          "DUPLICATE_DEPOSIT",
        );
        assert.deepEqual(await balance(buyer, "ETH"), { available: "0.5", locked: "0" });
      });

      it("credits a deposit id once when the same deposit arrives many times at once", async () => {
        const who = await api.user(0);
        const answers = await Promise.all(
          Array.from({ length: 8 }, () =>
            api.admin("POST", "/admin/deposits", {
              userId: who.userId,
              currencyCode: "USDT",
              amount: "7",
              depositId: "chain-tx-7",
            }),
          ),
        );
        assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409, 409, 409, 409, 409, 409, 409]);
        assert.deepEqual(await balance(who, "USDT"), { available: "7", locked: "0" });
        const ledger = await api.admin("GET", "/admin/ledger");
        for (const row of ledger.body) assert.equal(row.balanced, true, JSON.stringify(row));
      });
    });

    describe("signature", () => {
      const order = { isBid: true, currencyPairCode: "ALPHA_USDT", amount: 5, price: 0.2 };

      it("checks and counts each signed request once (RateLimit-Remaining falls by one)", async () => {
        const first = await api.signed(buyer, "GET", "/api/orders");
        const second = await api.signed(buyer, "GET", "/api/orders");
        assert.equal(
          Number(first.headers.get("ratelimit-remaining")) - Number(second.headers.get("ratelimit-remaining")),
          1,
        );
      });

      it("answers 401 UNAUTHORIZED to missing, malformed, wrong and unknown signatures, never 500", async () => {
        const cases: [string, (h: Record<string, string>) => void][] = [
          ["no signature", (h) => delete h["API-Signature"]],
          ["no public key", (h) => delete h["API-PublicKey"]],
          ["uppercase hex", (h) => (h["API-Signature"] = h["API-Signature"].toUpperCase())],
          ["short", (h) => (h["API-Signature"] = h["API-Signature"].slice(2))],
          ["not hex", (h) => (h["API-Signature"] = `zz${h["API-Signature"].slice(2)}`)],
          ["unknown key", (h) => (h["API-PublicKey"] = "pk_unknown")],
          ["another user's key", (h) => (h["API-PublicKey"] = seller.publicKey)],
        ];
        for (const [what, tamper] of cases) {
          const res = await api.signed(buyer, "POST", "/api/orders", order, { tamper });
          assert.equal(res.status, 401, `${what}: ${res.text}`);
          assert.equal(res.body.code, "UNAUTHORIZED", what);
        }
      });

      it("binds the exact body bytes and the URL", async () => {
        const signedText = JSON.stringify(order);
        expectError(
          await api.signed(buyer, "POST", "/api/orders", signedText, { sendBody: signedText.replace(":5,", ": 5,") }),
          401,
          "UNAUTHORIZED",
        );
        // A signature made for one URL does not open another.
        const headers = signRequest({
          publicKey: buyer.publicKey,
          privateKey: buyer.privateKey,
          method: "GET",
          url: `${server.url}/api/balances`,
        });
        const res = await fetch(`${server.url}/api/orders`, { headers });
        assert.equal(res.status, 401);
      });

      it("checks API-Timestamp when given: inside the window it passes, stale or altered it fails", async () => {
        assert.equal(
          (await api.signed(buyer, "GET", "/api/balances", undefined, { timestamp: Date.now() })).status,
          200,
        );
        expectError(
          await api.signed(buyer, "GET", "/api/balances", undefined, { timestamp: Date.now() - 10 * 60_000 }),
          401,
          "UNAUTHORIZED",
        );
        expectError(
          await api.signed(buyer, "GET", "/api/balances", undefined, {
            timestamp: Date.now(),
            tamper: (h) => (h["API-Timestamp"] = String(Number(h["API-Timestamp"]) + 1)),
          }),
          401,
          "UNAUTHORIZED",
        );
      });
    });

    describe("orders, deals, fees and balances", () => {
      let askId: string;

      it("a resting ask and a crossing bid make a deal at the maker's price, fees charged in what each receives", async () => {
        const ask = await api.signed(seller, "POST", "/api/orders", {
          isBid: false,
          currencyPairCode: "ALPHA_USDT",
          amount: 10,
          price: 0.5,
        });
        assert.equal(ask.status, 201, ask.text);
        askId = ask.body.id;
        assert.equal(ask.body.status, "open");
        assert.equal(ask.text.includes('"price":0.5'), true, "decimals are JSON numbers");
        assert.deepEqual(await balance(seller, "ALPHA"), { available: "90", locked: "10" });

        const bid = await api.signed(buyer, "POST", "/api/orders", {
          isBid: true,
          currencyPairCode: "ALPHA_USDT",
          amount: 4,
          price: 0.6,
        });
        assert.equal(bid.status, 201, bid.text);
        assert.equal(bid.body.status, "filled");
        assert.equal(bid.body.filledAmount, 4);
        assert.equal(bid.body.filledQuoteAmount, 2);
        assert.equal(bid.body.fills.length, 1);
        const fill = bid.body.fills[0];
        assert.equal(fill.price, 0.5);
        assert.equal(fill.isMaker, false);
        assert.equal(fill.fee, 0.008); // taker 0.2% of 4 ALPHA
        assert.equal(fill.feeCurrencyCode, "ALPHA");
        assert.match(fill.dealDateUtc, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

        assert.deepEqual(await balance(buyer, "ALPHA"), { available: "3.992", locked: "0" });
        assert.deepEqual(await balance(buyer, "USDT"), { available: "98", locked: "0" });
        assert.deepEqual(await balance(seller, "USDT"), { available: "51.998", locked: "0" }); // maker 0.1% of 2 USDT
        assert.deepEqual(await balance(seller, "ALPHA"), { available: "90", locked: "6" });

        const maker = await api.signed(seller, "GET", `/api/orders/${askId}`);
        assert.equal(maker.status, 200);
        assert.equal(maker.body.status, "open");
        assert.equal(maker.body.remainingAmount, 6);
        assert.equal(maker.body.fills[0].isMaker, true);
        assert.equal(maker.body.fills[0].fee, 0.002);
        assert.equal(maker.body.fills[0].dealId, fill.dealId);
      });

      it("lists open and history orders newest first with pagination", async () => {
        const open = await api.signed(seller, "GET", "/api/orders?status=open");
        assert.equal(open.status, 200, open.text);
        assert.deepEqual(
          open.body.items.map((o: any) => o.id),
          [askId],
        );
        const history = await api.signed(buyer, "GET", "/api/orders?status=history&pageSize=1");
        assert.equal(history.body.totalItems, 1);
        assert.equal(history.body.items[0].status, "filled");
        expectError(await api.signed(buyer, "GET", "/api/orders?pageSize=101"), 400, "INVALID_PARAM", "pageSize");
        expectError(await api.signed(buyer, "GET", "/api/orders?status=bogus"), 400, "INVALID_PARAM", "status");
      });

      it("another user's order is 404 and cannot be cancelled", async () => {
        expectError(await api.signed(buyer, "GET", `/api/orders/${askId}`), 404, "NOT_FOUND");
        expectError(await api.signed(buyer, "DELETE", `/api/orders/${askId}`), 404, "NOT_FOUND");
        expectError(await api.signed(buyer, "GET", "/api/orders/not-a-uuid"), 400, "INVALID_PARAM", "id");
      });

      it("cancel releases the hold; a second cancel is 409 ORDER_NOT_OPEN", async () => {
        const res = await api.signed(seller, "DELETE", `/api/orders/${askId}`);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.status, "cancelled");
        assert.deepEqual(await balance(seller, "ALPHA"), { available: "96", locked: "0" });
        expectError(await api.signed(seller, "DELETE", `/api/orders/${askId}`), 409, "ORDER_NOT_OPEN");
      });

      it("cancel-all cancels every open order of the caller on a pair", async () => {
        for (const price of [0.7, 0.8, 0.9]) {
          assert.equal(
            (
              await api.signed(seller, "POST", "/api/orders", {
                isBid: false,
                currencyPairCode: "ALPHA_USDT",
                amount: 2,
                price,
              })
            ).status,
            201,
          );
        }
        const res = await api.signed(seller, "DELETE", "/api/orders?currencyPairCode=ALPHA_USDT");
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.cancelled.length, 3);
        assert.deepEqual(await balance(seller, "ALPHA"), { available: "96", locked: "0" });
      });

      it("market orders: a buy spends what the book asks, a sell takes the bids", async () => {
        await api.signed(seller, "POST", "/api/orders", {
          isBid: false,
          currencyPairCode: "ALPHA_USDT",
          amount: 3,
          price: 1.25,
        });
        const buy = await api.signed(vip, "POST", "/api/orders", {
          isBid: true,
          currencyPairCode: "ALPHA_USDT",
          type: "market",
          amount: 2,
        });
        assert.equal(buy.status, 201, buy.text);
        assert.equal(buy.body.status, "filled");
        assert.equal(buy.body.filledQuoteAmount, 2.5);
        assert.equal(buy.body.fills[0].fee, 0.002); // level 25: taker 0.1%
        const sell = await api.signed(vip, "POST", "/api/orders", {
          isBid: false,
          currencyPairCode: "ALPHA_USDT",
          type: "market",
          amount: 1,
        });
        expectError(sell, 400, "NO_LIQUIDITY");
      });
    });

    describe("validation", () => {
      const place = (who: Credentials, body: object) => api.signed(who, "POST", "/api/orders", body);
      const base = { isBid: true, currencyPairCode: "ALPHA_USDT", amount: 5, price: 0.5 };

      it("refuses bad orders with stable codes naming the parameter", async () => {
        expectError(await place(buyer, { ...base, currencyPairCode: "NOPE_USDT" }), 400, "UNKNOWN_PAIR");
        expectError(
          await place(buyer, { ...base, currencyPairCode: "alpha-usdt" }),
          400,
          "INVALID_PARAM",
          "currencyPairCode",
        );
        expectError(await place(buyer, { ...base, price: 0.123456 }), 400, "INVALID_PARAM", "price");
        expectError(await place(buyer, { ...base, amount: 1.234 }), 400, "INVALID_PARAM", "amount");
        expectError(await place(buyer, { ...base, amount: 0 }), 400, "INVALID_PARAM", "amount");
        expectError(await place(buyer, { ...base, amount: -1 }), 400, "INVALID_PARAM", "amount");
        expectError(await place(buyer, { ...base, amount: "lots" }), 400, "INVALID_PARAM", "amount");
        expectError(await place(buyer, { ...base, isBid: "yes" }), 400, "INVALID_PARAM", "isBid");
        // A JSON number where a boolean belongs reads as what the client sent, not the parser's class.
        for (const bad of [{ isBid: 1 }, { postOnly: 1 }]) {
          const res = await place(buyer, { ...base, ...bad });
          expectError(res, 400, "INVALID_PARAM", Object.keys(bad)[0]);
          assert.match(res.body.message, /: must be true or false$/);
        }
        expectError(await place(buyer, { ...base, type: "stop" }), 400, "INVALID_PARAM", "type");
        expectError(await place(buyer, { ...base, timeInForce: "GTD" }), 400, "INVALID_PARAM", "timeInForce");
        expectError(await place(buyer, { ...base, type: "market" }), 400, "INVALID_PARAM", "price");
        expectError(
          await place(buyer, { isBid: true, currencyPairCode: "ALPHA_USDT", amount: 5 }),
          400,
          "INVALID_PARAM",
          "price",
        );
        expectError(await place(buyer, { ...base, extra: 1 }), 400, "INVALID_PARAM");
        expectError(await place(buyer, { ...base, amount: 1, price: 0.5 }), 400, "MIN_QUOTE_AMOUNT");
        expectError(await place(buyer, { ...base, amount: 1000, price: 1 }), 400, "INSUFFICIENT_BALANCE");
        expectError(await api.signed(buyer, "POST", "/api/orders", "not json"), 400, "INVALID_PARAM", "body");
        expectError(await api.signed(buyer, "POST", "/api/orders", "[1]"), 400, "INVALID_PARAM", "body");
      });

      it("post-only that would take and unfillable FOK are rejected with their reason and hold nothing", async () => {
        await place(seller, { isBid: false, currencyPairCode: "ALPHA_USDT", amount: 2, price: 0.55 });
        const before = await balance(buyer, "USDT");
        expectError(
          await place(buyer, { ...base, amount: 2, price: 0.6, postOnly: true }),
          400,
          "POST_ONLY_WOULD_TAKE",
        );
        expectError(
          await place(buyer, { ...base, amount: 50, price: 0.6, timeInForce: "FOK" }),
          400,
          "FOK_NOT_FILLABLE",
        );
        assert.deepEqual(await balance(buyer, "USDT"), before);
      });
    });

    describe("idempotency", () => {
      it("a repeated clientOrderId returns the first order, sequentially and concurrently", async () => {
        const body = {
          isBid: true,
          currencyPairCode: "ALPHA_USDT",
          amount: 5,
          price: 0.3,
          clientOrderId: "my-order-1",
        };
        const first = await api.signed(buyer, "POST", "/api/orders", body);
        assert.equal(first.status, 201, first.text);
        const again = await api.signed(buyer, "POST", "/api/orders", { ...body, amount: 6 });
        assert.equal(again.status, 200, again.text);
        assert.equal(again.headers.get("idempotent-replay"), "true");
        assert.equal(again.body.id, first.body.id);
        assert.equal(again.body.amount, 5);

        const racing = await Promise.all(
          [1, 2, 3, 4].map(() => api.signed(buyer, "POST", "/api/orders", { ...body, clientOrderId: "race" })),
        );
        assert.equal(new Set(racing.map((r) => r.body.id)).size, 1);
        assert.deepEqual(racing.map((r) => r.status).sort(), [200, 200, 200, 201]);
        const open = await api.signed(buyer, "GET", "/api/orders?status=open&pageSize=100");
        assert.equal(open.body.items.filter((o: any) => o.clientOrderId === "race").length, 1);
      });
    });

    describe("withdrawals and commissions", () => {
      it("debits the amount, keeps the fee, enforces min, max and balance", async () => {
        const res = await api.signed(vip, "POST", "/api/withdrawals", {
          currencyCode: "USDT",
          amount: 10,
          address: "0x00000000000000000000000000000000000000bb",
        });
        assert.equal(res.status, 201, res.text);
        assert.equal(res.body.fee, 1);
        assert.equal(res.body.sent, 9);
        assert.equal(res.body.status, "pending");
        expectError(
          await api.signed(vip, "POST", "/api/withdrawals", { currencyCode: "USDT", amount: 1, address: "0xbb" }),
          400,
          "BELOW_MIN_WITHDRAW",
        );
        expectError(
          await api.signed(vip, "POST", "/api/withdrawals", { currencyCode: "ETH", amount: 1001, address: "0xbb" }),
          400,
          "ABOVE_MAX_WITHDRAW",
        );
        expectError(
          await api.signed(vip, "POST", "/api/withdrawals", { currencyCode: "ETH", amount: 3, address: "0xbb" }),
          400,
          "INSUFFICIENT_BALANCE",
        );
        const list = await api.signed(vip, "GET", "/api/withdrawals");
        assert.equal(list.body.totalItems, 1);
      });

      it("a repeated clientWithdrawalId returns the first withdrawal and debits once, also when the repeats race", async () => {
        const who = await api.user(0, { USDT: "100" });
        const body = { currencyCode: "USDT", amount: 20, address: "0xcc", clientWithdrawalId: "w-1" };
        const first = await api.signed(who, "POST", "/api/withdrawals", body);
        assert.equal(first.status, 201, first.text);
        assert.equal(first.body.clientWithdrawalId, "w-1");
        const again = await api.signed(who, "POST", "/api/withdrawals", body);
        assert.equal(again.status, 200, again.text);
        assert.equal(again.headers.get("idempotent-replay"), "true");
        assert.equal(again.body.id, first.body.id);
        const racing = await Promise.all(
          Array.from({ length: 5 }, () =>
            api.signed(who, "POST", "/api/withdrawals", { ...body, clientWithdrawalId: "w-2" }),
          ),
        );
        assert.deepEqual(racing.map((r) => r.status).sort(), [200, 200, 200, 200, 201]);
        assert.equal(new Set(racing.map((r) => r.body.id)).size, 1);
        assert.deepEqual(await balance(who, "USDT"), { available: "60", locked: "0" });
        expectError(
          await api.signed(who, "POST", "/api/withdrawals", { ...body, clientWithdrawalId: "no spaces" }),
          400,
          "INVALID_PARAM",
          "clientWithdrawalId",
        );
      });

      it("refuses text the database cannot store with 400, and keeps serving (a failed commit would stop the exchange)", async () => {
        for (const address of ["0xbb\u0000", "0xbb\ud800", "0x bb", ""]) {
          expectError(
            await api.signed(vip, "POST", "/api/withdrawals", { currencyCode: "USDT", amount: 10, address }),
            400,
            "INVALID_PARAM",
            "address",
          );
        }
        expectError(
          await api.admin("POST", "/admin/deposits", {
            userId: vip.userId,
            currencyCode: "USDT",
            amount: "1",
            reference: "tx\u0000",
          }),
          400,
          "INVALID_PARAM",
          "reference",
        );
        expectError(
          await api.admin("POST", "/admin/deposits", {
            userId: vip.userId,
            currencyCode: "USDT",
            amount: "1",
            depositId: "id with spaces",
          }),
          400,
          "INVALID_PARAM",
          "depositId",
        );
        assert.equal((await api.signed(vip, "GET", "/api/balances")).status, 200);
      });

      it("shows each user the commissions of their tier", async () => {
        const basic = await api.signed(buyer, "GET", "/api/currencies/user/commissions");
        const tier = await api.signed(vip, "GET", "/api/currencies/user/commissions");
        assert.equal(basic.status, 200, basic.text);
        const taker = (rows: any[]) => rows.find((r) => r.commissionTypeCode === "4").percent;
        assert.equal(taker(basic.body), 0.002);
        assert.equal(taker(tier.body), 0.001);
        const refill = basic.body.find((r: any) => r.commissionTypeCode === "1");
        assert.equal(refill.commissionType.valueKey, "Refill");
      });
    });

    describe("internal signature verification", () => {
      it("tells the ecosystem API who signed a request, and refuses without the service secret", async () => {
        const url = "http://ecosystem.local/api/agents/workers/1/vote";
        const body = JSON.stringify({ proposalId: "1", vote: "yes" });
        const headers = signRequest({
          publicKey: vip.publicKey,
          privateKey: vip.privateKey,
          method: "POST",
          url,
          body,
        });
        const ask = (secret: string, forwarded: object) =>
          fetch(`${server.url}/internal/verify-signature`, {
            method: "POST",
            headers: { "x-service-secret": secret, "content-type": "application/json" },
            body: JSON.stringify(forwarded),
          });
        const ok = await ask(backend.env.EXCHANGE_SERVICE_SECRET!, { method: "POST", url, body, headers });
        assert.equal(ok.status, 200);
        assert.deepEqual(await ok.json(), {
          userId: vip.userId,
          level: 25,
          address: "0x00000000000000000000000000000000000000aa",
        });
        const bad = await ask(backend.env.EXCHANGE_SERVICE_SECRET!, { method: "POST", url, body: `${body} `, headers });
        assert.equal(bad.status, 401);
        assert.equal((await ask("wrong-secret-wrong-secret", { method: "POST", url, body, headers })).status, 401);
      });

      it("checks a batch of requests in order, each answered as the single route would; a signature is used once", async () => {
        const url = "http://ecosystem.local/api/launchpad/spawn";
        const signed = (who: typeof vip, body: string, timestamp?: number) => ({
          method: "POST",
          url,
          body,
          headers: signRequest({
            publicKey: who.publicKey,
            privateKey: who.privateKey,
            method: "POST",
            url,
            body,
            timestamp,
          }),
        });
        const ask = (payload: unknown, secret = backend.env.EXCHANGE_SERVICE_SECRET!) =>
          fetch(`${server.url}/internal/verify-signature/batch`, {
            method: "POST",
            headers: { "x-service-secret": secret, "content-type": "application/json" },
            body: JSON.stringify(payload),
          });
        const once = signed(buyer, '{"name":"Once"}', Date.now());
        const answer = await ask({
          requests: [
            signed(vip, '{"name":"A"}'),
            { ...signed(vip, '{"name":"B"}'), body: '{"name":"C"}' },
            once,
            once,
            { ...signed(buyer, "{}"), headers: { "API-PublicKey": "nobody", "API-Signature": "x" } },
          ],
        });
        assert.equal(answer.status, 200);
        const { results } = (await answer.json()) as { results: any[] };
        assert.deepEqual(results[0], {
          status: 200,
          caller: { userId: vip.userId, level: 25, address: "0x00000000000000000000000000000000000000aa" },
        });
        assert.deepEqual(
          results.map((r) => [r.status, r.caller?.userId ?? r.error.code]),
          [
            [200, vip.userId],
            [401, "UNAUTHORIZED"],
            [200, buyer.userId],
            [401, "UNAUTHORIZED"],
            [401, "UNAUTHORIZED"],
          ],
        );
        assert.match(results[3].error.message, /already used|replay/i);
        // A timestamped signature used in a batch is used up for the single route too.
        const single = await fetch(`${server.url}/internal/verify-signature`, {
          method: "POST",
          headers: { "x-service-secret": backend.env.EXCHANGE_SERVICE_SECRET!, "content-type": "application/json" },
          body: JSON.stringify(once),
        });
        assert.equal(single.status, 401);
        assert.equal((await ask({ requests: [] })).status, 400);
        assert.equal((await ask({ requests: Array.from({ length: 101 }, () => once) })).status, 400);
        assert.equal((await ask({ requests: [{ ...once, extra: 1 }] })).status, 400);
        assert.equal((await ask({ requests: [once] }, "wrong-secret-wrong-secret")).status, 401);
      });
    });

    describe("restart", () => {
      it("rebuilds books and balances from the database exactly", async () => {
        await api.signed(seller, "POST", "/api/orders", {
          isBid: false,
          currencyPairCode: "ALPHA_USDT",
          amount: 3,
          price: 0.95,
        });
        await api.signed(vip, "POST", "/api/orders", {
          isBid: true,
          currencyPairCode: "ALPHA_USDT",
          amount: 4,
          price: 0.45,
        });
        const snapshot = async () => ({
          balances: await Promise.all(
            [seller, buyer, vip].map(async (u) => (await api.signed(u, "GET", "/api/balances")).body),
          ),
          open: await Promise.all(
            [seller, buyer, vip].map(
              async (u) => (await api.signed(u, "GET", "/api/orders?status=open&pageSize=100")).body.items,
            ),
          ),
        });
        const before = await snapshot();
        await server.close();
        await start();
        assert.deepEqual(await snapshot(), before);
        // The restored book still matches: the vip's resting bid at 0.45 is hit by a sell.
        const sell = await api.signed(seller, "POST", "/api/orders", {
          isBid: false,
          currencyPairCode: "ALPHA_USDT",
          amount: 4,
          price: 0.45,
        });
        assert.equal(sell.body.status, "filled", sell.text);
      });

      it("starts with a pair deactivated under resting orders: they can be cancelled, new ones are refused", async () => {
        const lockedBefore = (await balance(buyer, "USDT")).locked;
        const bid = await api.signed(buyer, "POST", "/api/orders", {
          isBid: true,
          currencyPairCode: "BETA_USDT",
          amount: 10,
          price: 0.2,
        });
        assert.equal(bid.status, 201, bid.text);
        assert.notEqual((await balance(buyer, "USDT")).locked, lockedBefore);
        await server.close();
        const db = await openDb({
          databaseUrl: backend.env.DATABASE_URL,
          dataDir: backend.env.EXCHANGE_DATA_DIR,
          schema: backend.env.EXCHANGE_DB_SCHEMA,
        });
        await db.query("update pairs set active = false where code = 'BETA_USDT'");
        await db.close();
        await start();
        const pairs = await fetch(`${server.url}/api/currencies/pairs`).then(
          (r) => r.json() as Promise<{ code: string }[]>,
        );
        assert.ok(!pairs.some((p) => p.code === "BETA_USDT"), "an inactive pair is not listed");
        expectError(
          await api.signed(buyer, "POST", "/api/orders", {
            isBid: true,
            currencyPairCode: "BETA_USDT",
            amount: 10,
            price: 0.2,
          }),
          400,
          "UNKNOWN_PAIR",
        );
        const cancel = await api.signed(buyer, "DELETE", `/api/orders/${bid.body.id}`);
        assert.equal(cancel.status, 200, cancel.text);
        assert.equal(cancel.body.status, "cancelled");
        assert.equal((await balance(buyer, "USDT")).locked, lockedBefore, "the cancel released the hold");
      });
    });
  });
}
