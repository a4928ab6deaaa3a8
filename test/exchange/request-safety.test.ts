/**
 * Request safety over real HTTP, on PGlite and (with DATABASE_URL) on PostgreSQL: a timestamped
 * signature is accepted once (also across a restart and through the internal endpoint), failed
 * authentications are limited per client IP, and amounts past what storage holds are refused
 * with 400 instead of failing a commit (which stops the exchange).
 */
import assert from "node:assert/strict";
import { afterAll, beforeAll, describe, it } from "vitest";
import { signRequest } from "../../exchange/adapters/auth/index.ts";
import { seedFixtureBeforeLoad } from "../../support/exchange/fixture-market.ts";
import { startExchange, type RunningExchange } from "../../exchange/server/start.ts";
import { freePort } from "../../support/net/free-port.ts";
import { backendKinds, createBackend, type Backend } from "../../support/exchange/backends.ts";
import { type Credentials, readAnswer, SigningClient } from "../../support/exchange/signing-client.ts";

const quiet = () => {};

for (const kind of backendKinds()) {
  describe(`exchange request safety on ${kind}`, () => {
    let backend: Backend;
    let server: RunningExchange;
    let api: SigningClient;
    let trader: Credentials;
    /** Errors that would have stopped the process (a failed commit); none may happen. */
    const fatal: unknown[] = [];

    const start = async () => {
      server = await startExchange(backend.env, {
        log: quiet,
        onFatal: (error) => fatal.push(error),
        beforeLoad: seedFixtureBeforeLoad,
      });
      api = new SigningClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!);
    };

    beforeAll(async () => {
      // A fixed port (free now) so a restart serves the URLs that earlier signatures cover.
      backend = await createBackend(kind, {
        EXCHANGE_PORT: String(await freePort()),
        TRUST_PROXY: "true",
        AUTH_FAILURE_LIMIT_PER_MINUTE: "10",
      });
      await start();
      trader = await api.user(0, { USDT: "1000", ALPHA: "1000" });
    });

    afterAll(async () => {
      await server?.close();
      await backend?.cleanup();
    });

    const expectError = (
      res: { status: number; body: any; text: string },
      status: number,
      code: string,
      mentions?: RegExp,
    ) => {
      assert.equal(res.status, status, res.text);
      assert.equal(res.body.code, code, res.text);
      if (mentions) assert.match(res.body.message, mentions);
    };

    /** Sends exactly these signed bytes (a captured request) from `ip`, as often as called. */
    const capture = (
      who: Credentials,
      method: string,
      path: string,
      payload?: object,
      timestamp: number | null = Date.now(),
    ) => {
      const { url, body, headers } = api.signedRequest(who, method, path, payload, timestamp ?? undefined);
      headers["content-type"] = "application/json";
      return {
        headers,
        url,
        body,
        send: async (ip = "10.1.0.1") => {
          const res = await fetch(url, {
            method,
            headers: { ...headers, "x-forwarded-for": ip },
            ...(body === "" ? {} : { body }),
          });
          return readAnswer<any>(res);
        },
      };
    };

    describe("replay protection", () => {
      it("accepts a timestamped POST /api/orders once: three sends make one order", async () => {
        const order = capture(trader, "POST", "/api/orders", {
          isBid: true,
          currencyPairCode: "ALPHA_USDT",
          amount: "100",
          price: "0.1",
        });
        assert.equal((await order.send()).status, 201);
        expectError(await order.send(), 401, "UNAUTHORIZED", /Replayed request/);
        expectError(await order.send(), 401, "UNAUTHORIZED", /Replayed request/);
        const open = await api.signed(trader, "GET", "/api/orders?status=open", undefined, { timestamp: Date.now() });
        assert.equal(open.body.totalItems, 1, open.text);
      });

      it("accepts a timestamped POST /api/withdrawals once: two sends debit once", async () => {
        const withdrawal = capture(trader, "POST", "/api/withdrawals", {
          currencyCode: "USDT",
          amount: "10",
          address: "0xabc",
        });
        assert.equal((await withdrawal.send()).status, 201);
        expectError(await withdrawal.send(), 401, "UNAUTHORIZED", /Replayed request/);
        const list = await api.signed(trader, "GET", "/api/withdrawals", undefined, { timestamp: Date.now() });
        assert.equal(list.body.totalItems, 1, list.text);
      });

      it("still answers a clientOrderId retry (re-signed with a new timestamp) with the first order", async () => {
        const order = {
          isBid: true,
          currencyPairCode: "ALPHA_USDT",
          amount: "50",
          price: "0.1",
          clientOrderId: "retry-1",
        };
        const first = await capture(trader, "POST", "/api/orders", order, Date.now()).send();
        assert.equal(first.status, 201, first.text);
        const again = await capture(trader, "POST", "/api/orders", order, Date.now() + 1).send();
        assert.equal(again.status, 200, again.text);
        assert.equal(again.headers.get("idempotent-replay"), "true");
        assert.equal(again.body.id, first.body.id);
      });

      it("shares the cache with /internal/verify-signature: a signature used on one route is refused on the other", async () => {
        const verify = (forwarded: object) =>
          fetch(`${server.url}/internal/verify-signature`, {
            method: "POST",
            headers: { "x-service-secret": backend.env.EXCHANGE_SERVICE_SECRET!, "content-type": "application/json" },
            body: JSON.stringify(forwarded),
          });
        const balances = capture(trader, "GET", "/api/balances");
        assert.equal((await balances.send()).status, 200);
        assert.equal((await verify({ method: "GET", url: balances.url, headers: balances.headers })).status, 401);
        const url = "http://ecosystem.local/api/agents/workers/1/vote";
        const body = JSON.stringify({ proposalId: "1", vote: "yes" });
        const headers = signRequest({
          publicKey: trader.publicKey,
          privateKey: trader.privateKey,
          method: "POST",
          url,
          body,
          timestamp: Date.now(),
        });
        assert.equal((await verify({ method: "POST", url, body, headers })).status, 200);
        const replayed = await verify({ method: "POST", url, body, headers });
        assert.equal(replayed.status, 401);
        assert.match(((await replayed.json()) as any).message, /Replayed request/);
      });

      it("keeps accepting requests without API-Timestamp (the spec's scheme; the README says they replay)", async () => {
        const untimed = capture(trader, "GET", "/api/balances", undefined, null);
        assert.equal((await untimed.send()).status, 200);
        assert.equal((await untimed.send()).status, 200);
      });

      it("does not reopen replays across a restart: what was signed before it is refused after", async () => {
        const order = capture(trader, "POST", "/api/orders", {
          isBid: true,
          currencyPairCode: "ALPHA_USDT",
          amount: "60",
          price: "0.1",
        });
        assert.equal((await order.send()).status, 201);
        await server.close();
        await start();
        // The same port, so the captured URL (which the signature covers) still reaches it.
        assert.equal(server.url, order.url.replace("/api/orders", ""));
        assert.equal(
          (await capture(trader, "GET", "/api/balances").send()).status,
          200,
          "a request signed after the restart passes",
        );
        expectError(await order.send(), 401, "UNAUTHORIZED", /before this server started/);
      });

      it("accepts at most 1 s ahead of server time, so a fast clock cannot replay across a restart", async () => {
        // A client clock 20 s fast: the old symmetric window took it, and a restart within those
        // 20 s took the same bytes again. Now it is refused outright, with the reason.
        const fast = capture(
          trader,
          "POST",
          "/api/orders",
          { isBid: true, currencyPairCode: "ALPHA_USDT", amount: "70", price: "0.1" },
          Date.now() + 20_000,
        );
        expectError(
          await fast.send(),
          401,
          "UNAUTHORIZED",
          /ms ahead of server time \d+; at most 1000 ms ahead is accepted/,
        );
        // Within the 1 s allowed: accepted once, and refused after a restart however quick.
        const ahead = capture(
          trader,
          "POST",
          "/api/orders",
          { isBid: true, currencyPairCode: "ALPHA_USDT", amount: "80", price: "0.1" },
          Date.now() + 900,
        );
        assert.equal((await ahead.send()).status, 201);
        await server.close();
        await start();
        expectError(await ahead.send(), 401, "UNAUTHORIZED", /before this server started/);
        expectError(await fast.send(), 401, "UNAUTHORIZED");
        const open = await api.signed(trader, "GET", "/api/orders?status=open");
        assert.equal(
          open.body.items.filter((o: { amount: number }) => o.amount === 70 || o.amount === 80).length,
          1,
          open.text,
        );
      });
    });

    describe("failed authentications per client IP", () => {
      it("answers a flood of bad signatures with 429 and Retry-After, while a good client from another IP is served", async () => {
        const forged = capture(trader, "POST", "/api/orders", {
          isBid: true,
          currencyPairCode: "ALPHA_USDT",
          amount: "1",
          price: "0.1",
        });
        forged.headers["API-Signature"] = "0".repeat(64);
        const statuses: number[] = [];
        for (let i = 0; i < 40; i++) statuses.push((await forged.send("10.66.0.1")).status);
        // AUTH_FAILURE_LIMIT_PER_MINUTE=10 in this backend.
        assert.deepEqual(statuses, [...Array(10).fill(401), ...Array(30).fill(429)]);
        const limited = await forged.send("10.66.0.1");
        expectError(limited, 429, "RATE_LIMITED");
        assert.ok(Number(limited.headers.get("retry-after")) >= 1);
        // The flooding IP is refused even with a good signature until its minute ends; others are not.
        expectError(await capture(trader, "GET", "/api/balances").send("10.66.0.1"), 429, "RATE_LIMITED");
        assert.equal((await capture(trader, "GET", "/api/balances").send("10.77.0.1")).status, 200);
        const good = await capture(trader, "POST", "/api/orders", {
          isBid: true,
          currencyPairCode: "ALPHA_USDT",
          amount: "100",
          price: "0.1",
        }).send("10.77.0.2");
        assert.equal(good.status, 201, good.text);
      });

      it("counts bad signatures on the optionally signed GET /api/deals too", async () => {
        const deals = capture(trader, "GET", "/api/deals?currencyPairCode=ALPHA_USDT");
        deals.headers["API-Signature"] = "1".repeat(64);
        const statuses: number[] = [];
        for (let i = 0; i < 11; i++) statuses.push((await deals.send("10.55.0.1")).status);
        assert.deepEqual(statuses, [...Array(10).fill(401), 429]);
        assert.equal(
          (
            await fetch(`${server.url}/api/deals?currencyPairCode=ALPHA_USDT`, {
              headers: { "x-forwarded-for": "10.55.0.2" },
            })
          ).status,
          200,
        );
      });

      it("counts wrong admin tokens and service secrets too", async () => {
        const adminWith = (token: string, ip: string) =>
          fetch(`${server.url}/admin/ledger`, { headers: { authorization: `Bearer ${token}`, "x-forwarded-for": ip } });
        const statuses: number[] = [];
        for (let i = 0; i < 12; i++) statuses.push((await adminWith(`guess-${i}`, "10.88.0.1")).status);
        assert.deepEqual(statuses, [...Array(10).fill(401), 429, 429]);
        assert.equal(
          (await adminWith(backend.env.EXCHANGE_ADMIN_TOKEN!, "10.88.0.1")).status,
          429,
          "guessing stops, even at the right token",
        );
        assert.equal((await adminWith(backend.env.EXCHANGE_ADMIN_TOKEN!, "10.88.0.2")).status, 200);
        const internal = (secret: string) =>
          fetch(`${server.url}/internal/verify-signature`, {
            method: "POST",
            headers: { "x-service-secret": secret, "x-forwarded-for": "10.99.0.1", "content-type": "application/json" },
            body: "{}",
          });
        for (let i = 0; i < 10; i++) assert.equal((await internal(`wrong-secret-${i}`)).status, 401);
        assert.equal((await internal(backend.env.EXCHANGE_SERVICE_SECRET!)).status, 429);
      });
    });

    describe("amounts within storage bounds", () => {
      // USDT has 6 decimals: 10^74 USDT is 10^80 base units, past numeric(78, 0).
      const huge = `1${"0".repeat(74)}`;

      it("refuses an admin deposit of 1e80 units with 400 INVALID_PARAM and keeps serving", async () => {
        expectError(
          await api.admin("POST", "/admin/deposits", { userId: trader.userId, currencyCode: "USDT", amount: huge }),
          400,
          "INVALID_PARAM",
          /amount/,
        );
        assert.deepEqual(fatal, []);
        const balances = await api.signed(trader, "GET", "/api/balances");
        assert.equal(balances.status, 200, balances.text);
        assert.ok(balances.body.find((b: any) => b.currencyCode === "USDT").available < 1000, "nothing was credited");
      });

      it("refuses a deposit that would take a currency's holdings past 10^78 - 1 units", async () => {
        const whale = await api.user(0);
        const max = `${"9".repeat(72)}.${"9".repeat(6)}`; // (10^78 - 1) / 10^6 USDT
        // The exchange already holds 1000 USDT of the trader, so the maximum itself is one unit too many.
        expectError(
          await api.admin("POST", "/admin/deposits", { userId: whale.userId, currencyCode: "USDT", amount: max }),
          400,
          "INVALID_PARAM",
          /10\^78 - 1/,
        );
        // ALPHA has 18 decimals: 5 x 10^59 ALPHA is 5 x 10^77 units, which fits once but not twice.
        const half = `5${"0".repeat(59)}`;
        const fits = await api.admin("POST", "/admin/deposits", {
          userId: whale.userId,
          currencyCode: "ALPHA",
          amount: half,
        });
        assert.equal(fits.status, 201, fits.text);
        expectError(
          await api.admin("POST", "/admin/deposits", { userId: whale.userId, currencyCode: "ALPHA", amount: half }),
          400,
          "INVALID_PARAM",
          /10\^78 - 1/,
        );
        assert.deepEqual(fatal, []);
        const ledger = await api.admin("GET", "/admin/ledger");
        assert.ok(
          ledger.body.every((row: any) => row.balanced),
          ledger.text,
        );
      });

      it("refuses order and withdrawal amounts past storage with 400 INVALID_PARAM", async () => {
        const market = { isBid: true, currencyPairCode: "ALPHA_USDT", amount: 1, type: "market", quoteAmount: huge };
        expectError(
          await api.signed(trader, "POST", "/api/orders", JSON.stringify(market).replace(`"${huge}"`, huge)),
          400,
          "INVALID_PARAM",
          /quoteAmount/,
        );
        expectError(
          await api.signed(trader, "POST", "/api/withdrawals", {
            currencyCode: "USDT",
            amount: huge,
            address: "0xabc",
          }),
          400,
          "INVALID_PARAM",
          /amount/,
        );
        expectError(
          await api.signed(trader, "POST", "/api/orders", {
            isBid: true,
            currencyPairCode: "ALPHA_USDT",
            amount: "1".repeat(120),
            price: "1",
          }),
          400,
          "INVALID_PARAM",
          /amount/,
        );
        assert.deepEqual(fatal, []);
        assert.equal((await api.signed(trader, "GET", "/api/balances")).status, 200);
      });
    });
  });
}
