/**
 * The exchange's web account over real HTTP, on PGlite and (with DATABASE_URL) on PostgreSQL:
 * Sign in with Ethereum opens a session cookie; the session creates, lists and revokes API keys;
 * a key made here signs SPEC.md's requests; a revoked one is refused at once. Bad sign-ins
 * (another domain or chain, a used nonce, someone else's signature, a malformed message) and
 * session writes without the CSRF token hold, create and open nothing. Sessions survive a
 * restart; sign-out ends one.
 */
import assert from "node:assert/strict";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, it } from "vitest";
import { seedFixtureBeforeLoad } from "../../support/exchange/fixture-market.ts";
import { type RunningExchange, startExchange } from "../../exchange/server/start.ts";
import { type Backend, backendKinds, createBackend } from "../../support/exchange/backends.ts";
import { SigningClient } from "../../support/exchange/signing-client.ts";
import { StreamClient } from "../../support/exchange/stream-client.ts";
import { TEST_WEB_ORIGIN, webAccountClient } from "../../support/exchange/web-account-client.ts";

const quiet = () => {};
const WEB = TEST_WEB_ORIGIN;
const person = privateKeyToAccount(`0x${"5a".repeat(32)}`);
const stranger = privateKeyToAccount(`0x${"6b".repeat(32)}`);

for (const kind of backendKinds()) {
  describe(`the web account on ${kind}`, () => {
    let backend: Backend;
    let server: RunningExchange;

    const start = async () => {
      server = await startExchange(
        { ...backend.env, WEB_ORIGIN: [WEB], CHAIN_ID: 31337 },
        {
          log: quiet,
          beforeLoad: seedFixtureBeforeLoad,
        },
      );
    };

    beforeAll(async () => {
      backend = await createBackend(kind);
      await start();
    });

    afterAll(async () => {
      await server?.close();
      await backend?.cleanup();
    });

    const web = webAccountClient(() => server.url, WEB);
    const { call } = web;
    const signedMessage = (signer = person, fields?: Parameters<typeof web.signedMessage>[1]) =>
      web.signedMessage(signer, fields);
    const signIn = (signer = person) => web.signIn(signer);

    it("signs in: a first sign-in creates the account bound to the address, a second finds it", async () => {
      const first = await signIn();
      assert.equal(first.account.address, person.address.toLowerCase());
      assert.equal(first.account.level, 0);
      const second = await signIn();
      assert.equal(second.account.userId, first.account.userId);
      const me = await call("GET", "/api/account", { cookie: second.cookie });
      assert.equal(me.status, 200);
      assert.equal(me.body.userId, first.account.userId);
      assert.equal(me.body.csrfToken, second.csrf, "a reloaded page gets the session's CSRF token back");
      const asked = await call("GET", "/api/auth/session", { cookie: second.cookie });
      assert.deepEqual(asked.body.account, me.body);
      const anonymous = await call("GET", "/api/auth/session");
      assert.deepEqual([anonymous.status, anonymous.body], [200, { account: null }]);
    });

    it("creates a key whose pair signs SPEC.md's requests, lists it, and revokes it at once", async () => {
      const { cookie, csrf } = await signIn();
      const created = await call("POST", "/api/account/keys", { cookie, csrf });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const { publicKey, privateKey } = created.body;
      const listed = await call("GET", "/api/account/keys", { cookie });
      assert.ok(listed.body.items.some((k: { publicKey: string }) => k.publicKey === publicKey));
      assert.ok(
        listed.body.items.every((k: object) => !("privateKey" in k)),
        "no secret is listed",
      );

      const client = new SigningClient(server.url);
      const keys = { publicKey, privateKey };
      const unused = (await call("GET", "/api/account/keys", { cookie })).body.items;
      assert.equal(unused.find((k: { publicKey: string }) => k.publicKey === publicKey).lastUsedAt, null);
      const beforeUse = Date.now();
      const balances = await client.signed(keys, "GET", "/api/balances", undefined, { timestamp: Date.now() });
      assert.equal(balances.status, 200);
      const used = (await call("GET", "/api/account/keys", { cookie })).body.items;
      assert.ok(used.find((k: { publicKey: string }) => k.publicKey === publicKey).lastUsedAt >= beforeUse);

      assert.equal((await call("DELETE", `/api/account/keys/${publicKey}`, { cookie, csrf })).status, 200);
      const refused = await client.signed(keys, "GET", "/api/balances", undefined, { timestamp: Date.now() });
      assert.equal(refused.status, 401);
      assert.equal((await call("DELETE", `/api/account/keys/${publicKey}`, { cookie, csrf })).status, 404);
    });

    it("ends a revoked key's /ws login at once", async () => {
      const { cookie, csrf } = await signIn();
      const { publicKey, privateKey } = (await call("POST", "/api/account/keys", { cookie, csrf })).body;
      const stream = await StreamClient.connect(server.url);
      try {
        const login = await stream.login({ userId: "", publicKey, privateKey });
        assert.equal(login.result?.stream, "user", JSON.stringify(login));
        assert.equal((await call("DELETE", `/api/account/keys/${publicKey}`, { cookie, csrf })).status, 200);
        await stream.until(() => stream.closed !== undefined, 5_000, "the connection closed");
        assert.deepEqual(stream.closed, { code: 4001, reason: "API key revoked" });
      } finally {
        stream.close();
      }
    });

    it("refuses bad sign-ins with their codes and opens no session for them", async () => {
      const good = await signedMessage();
      const cases = [
        ["another domain", await signedMessage(person, { domain: "evil.example", uri: "https://evil.example/" })],
        ["another chain", await signedMessage(person, { chainId: 1 })],
        ["expired", await signedMessage(person, { expirationTime: new Date(Date.now() - 1_000) })],
        ["someone else's signature", { message: good.message, signature: (await signedMessage(stranger)).signature }],
        ["a nonce not issued here", await signedMessage(person, { nonce: "0123456789abcdef0123" })],
      ] as const;
      for (const [what, body] of cases) {
        const answer = await call("POST", "/api/auth/session", { body });
        assert.deepEqual([what, answer.status, answer.body.code], [what, 401, "UNAUTHORIZED"]);
        assert.equal(answer.headers.get("set-cookie"), null, what);
      }
      const malformed = await call("POST", "/api/auth/session", { body: { message: "hello", signature: "0x12" } });
      assert.deepEqual([malformed.status, malformed.body.code], [400, "INVALID_PARAM"]);
      // The good message still works once, and only once: its nonce is then used.
      assert.equal((await call("POST", "/api/auth/session", { body: good })).status, 200);
      const replayed = await call("POST", "/api/auth/session", { body: good });
      assert.deepEqual([replayed.status, replayed.body.code], [401, "UNAUTHORIZED"]);
    });

    it("takes a sign-in only from the web app's page, as JSON (no login CSRF)", async () => {
      for (const [what, init, status] of [
        ["another origin", { origin: "https://evil.example" }, 403],
        ["a form's text/plain body", { contentType: "text/plain" }, 400],
      ] as const) {
        const answer = await call("POST", "/api/auth/session", { body: await signedMessage(), ...init });
        assert.deepEqual([what, answer.status], [what, status]);
        assert.equal(answer.headers.get("set-cookie"), null, what);
      }
    });

    it("gives a new address one account however many sign-ins race", async () => {
      const racer = privateKeyToAccount(`0x${"7c".repeat(32)}`);
      const bodies = await Promise.all(Array.from({ length: 12 }, () => signedMessage(racer)));
      const answers = await Promise.all(bodies.map((body) => call("POST", "/api/auth/session", { body })));
      assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([200]));
      assert.equal(new Set(answers.map((a) => a.body.userId)).size, 1);
      assert.match(answers[0]!.headers.get("cache-control") ?? "", /no-store/);
    });

    it("needs the session's CSRF token for writes, and a session for everything", async () => {
      const { cookie, csrf } = await signIn();
      const before = (await call("GET", "/api/account/keys", { cookie })).body.items.length;
      for (const token of [undefined, "forged", (await signIn(stranger)).csrf]) {
        const answer = await call("POST", "/api/account/keys", { cookie, csrf: token });
        assert.deepEqual([answer.status, answer.body.code], [403, "FORBIDDEN"]);
      }
      assert.equal((await call("GET", "/api/account/keys", { cookie })).body.items.length, before, "no key made");
      for (const path of ["/api/account", "/api/account/keys"]) {
        const answer = await call("GET", path, { cookie: "exchange_session=not-a-session" });
        assert.deepEqual([answer.status, answer.body.code], [401, "UNAUTHORIZED"]);
      }
      assert.equal((await call("POST", "/api/account/keys", { csrf })).status, 401);
    });

    it("lets a session read balances and place and cancel orders, with CSRF and the web app's Origin", async () => {
      const { cookie, csrf, account } = await signIn();
      const admin = new SigningClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!);
      const credited = await admin.admin("POST", "/admin/deposits", {
        userId: account.userId,
        currencyCode: "USDT",
        amount: "100",
      });
      assert.equal(credited.status, 201, credited.text);
      const balances = await call("GET", "/api/balances", { cookie });
      assert.equal(balances.status, 200, JSON.stringify(balances.body));
      assert.match(balances.headers.get("cache-control") ?? "", /no-store/);
      assert.ok(balances.headers.get("ratelimit-limit"), "session calls are rate limited");
      const usdt = balances.body.find((b: { currencyCode: string }) => b.currencyCode === "USDT");
      assert.ok(usdt.available >= 100, JSON.stringify(usdt));
      for (const path of [
        "/api/deposits",
        "/api/withdrawals",
        "/api/orders?status=open",
        "/api/currencies/user/commissions",
      ])
        assert.equal((await call("GET", path, { cookie })).status, 200, path);

      const order = { currencyPairCode: "ETH_USDT", isBid: true, amount: "0.01", price: "100", postOnly: true };
      for (const [what, init, code] of [
        ["no CSRF token", { cookie, body: order }, "FORBIDDEN"],
        ["a forged CSRF token", { cookie, csrf: "forged", body: order }, "FORBIDDEN"],
        ["a foreign Origin", { cookie, csrf, body: order, origin: "https://evil.example" }, "FORBIDDEN"],
      ] as const) {
        const refused = await call("POST", "/api/orders", init);
        assert.deepEqual([what, refused.status, refused.body.code], [what, 403, code]);
      }
      assert.equal((await call("GET", "/api/orders?status=open", { cookie })).body.items.length, 0, "nothing placed");

      const placed = await call("POST", "/api/orders", { cookie, csrf, body: order });
      assert.equal(placed.status, 201, JSON.stringify(placed.body));
      assert.equal(placed.body.status, "open");
      const open = await call("GET", "/api/orders?status=open", { cookie });
      assert.deepEqual(
        open.body.items.map((o: { id: string }) => o.id),
        [placed.body.id],
      );
      assert.equal((await call("GET", `/api/orders/${placed.body.id}`, { cookie })).body.id, placed.body.id);
      const noToken = await call("DELETE", `/api/orders/${placed.body.id}`, { cookie });
      assert.deepEqual([noToken.status, noToken.body.code], [403, "FORBIDDEN"]);
      const cancelled = await call("DELETE", `/api/orders/${placed.body.id}`, { cookie, csrf });
      assert.deepEqual([cancelled.status, cancelled.body.status], [200, "cancelled"]);

      // Neither a signature nor a live session: 401 as ever; a signature still wins over a cookie.
      const nobody = await call("GET", "/api/balances", { cookie: "exchange_session=not-a-session" });
      assert.deepEqual([nobody.status, nobody.body.code], [401, "UNAUTHORIZED"]);
      assert.equal((await call("GET", "/api/balances")).status, 401);
      const signedWrong = await fetch(`${server.url}/api/balances`, {
        headers: { cookie, "API-PublicKey": "unknown", "API-Signature": "0".repeat(64) },
      });
      assert.equal(signedWrong.status, 401, "a bad signature is not rescued by a session");
    });

    it("logs a session into the /ws user stream with a one-use ticket, and its orders arrive there", async () => {
      const { cookie, csrf, account } = await signIn();
      const admin = new SigningClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!);
      await admin.admin("POST", "/admin/deposits", { userId: account.userId, currencyCode: "USDT", amount: "10" });
      assert.equal((await call("GET", "/api/account/ws-ticket")).status, 401, "no session, no ticket");
      const issued = await call("GET", "/api/account/ws-ticket", { cookie });
      assert.equal(issued.status, 200, JSON.stringify(issued.body));
      assert.match(issued.headers.get("cache-control") ?? "", /no-store/);
      const stream = await StreamClient.connect(server.url);
      const again = await StreamClient.connect(server.url);
      try {
        const login = await stream.request("LOGIN", { ticket: issued.body.ticket });
        assert.deepEqual(login.result, { stream: "user", userId: account.userId });
        const replayed = await again.request("LOGIN", { ticket: issued.body.ticket });
        assert.equal(replayed.error?.code, "UNAUTHORIZED", "a ticket logs in once");
        const forged = await again.request("LOGIN", { ticket: "forged" });
        assert.equal(forged.error?.code, "UNAUTHORIZED");
        const order = { currencyPairCode: "ETH_USDT", isBid: true, amount: "0.01", price: "100", postOnly: true };
        const placed = await call("POST", "/api/orders", { cookie, csrf, body: order });
        assert.equal(placed.status, 201, JSON.stringify(placed.body));
        await stream.until(
          () => stream.events.some((e) => e.stream === "user" && JSON.stringify(e.data).includes(placed.body.id)),
          5_000,
          "the order on the user stream",
        );
        assert.equal(
          again.events.some((e) => e.stream === "user"),
          false,
          "nothing for the refused login",
        );
        await call("DELETE", `/api/orders/${placed.body.id}`, { cookie, csrf });
        // A ticket not yet used dies with its session; a login made with one ends with it.
        const unused = await call("GET", "/api/account/ws-ticket", { cookie });
        assert.equal((await call("DELETE", "/api/auth/session", { cookie, csrf })).status, 200);
        await stream.until(() => stream.closed !== undefined, 5_000, "the ticket login closed by sign-out");
        assert.deepEqual(stream.closed, { code: 4001, reason: "web session ended" });
        const late = await again.request("LOGIN", { ticket: unused.body.ticket });
        assert.equal(late.error?.code, "UNAUTHORIZED", "a signed-out session's ticket logs in no one");
      } finally {
        stream.close();
        again.close();
      }
    });

    it("keeps sessions and keys' last uses across a restart; sign-out ends a session", async () => {
      const { cookie, csrf, account } = await signIn();
      const { publicKey, privateKey } = (await call("POST", "/api/account/keys", { cookie, csrf })).body;
      const used = await new SigningClient(server.url).signed(
        { publicKey, privateKey },
        "GET",
        "/api/balances",
        undefined,
        {
          timestamp: Date.now(),
        },
      );
      assert.equal(used.status, 200);
      const lastUseOf = async () =>
        (await call("GET", "/api/account/keys", { cookie })).body.items.find(
          (k: { publicKey: string }) => k.publicKey === publicKey,
        ).lastUsedAt;
      const lastUse = await lastUseOf();
      assert.ok(lastUse > 0);
      await server.close();
      await start();
      const me = await call("GET", "/api/account", { cookie });
      assert.equal(me.body.userId, account.userId);
      assert.equal(await lastUseOf(), lastUse, "the last use was written at shutdown");
      assert.equal((await call("DELETE", "/api/auth/session", { cookie, csrf })).status, 200);
      assert.equal((await call("GET", "/api/account", { cookie })).status, 401);
      await server.close();
      await start();
      assert.equal((await call("GET", "/api/account", { cookie })).status, 401, "sign-out outlives a restart");
    });
  });
}
