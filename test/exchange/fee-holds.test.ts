/**
 * Fee holds for on-chain actions over real HTTP, on PGlite and (with DATABASE_URL) on PostgreSQL:
 * the ecosystem API holds a spawn's fee from the user's ETH before relaying the transaction, then
 * settles it (burned) or releases it. Balances show held fees as locked, reconciliation counts
 * what was burned, every call is idempotent on the hold id, a hold is resolved once, concurrent
 * holds never overdraw, and open holds survive a restart.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { formatUnits, parseUnits } from "viem";
import { afterAll, beforeAll, describe, it } from "vitest";
import { seedFixtureBeforeLoad } from "../../support/exchange/fixture-market.ts";
import { startExchange, type RunningExchange } from "../../exchange/server/start.ts";
import { backendKinds, createBackend, type Backend } from "../../support/exchange/backends.ts";
import { SigningClient, type Answer, type Credentials } from "../../support/exchange/signing-client.ts";

const quiet = () => {};
/** a - b of two ETH amounts (decimal text or JSON numbers), exactly. */
const ethMinus = (a: unknown, b: unknown) => formatUnits(parseUnits(String(a), 18) - parseUnits(String(b), 18), 18);

for (const kind of backendKinds()) {
  describe(`exchange fee holds on ${kind}`, () => {
    let backend: Backend;
    let server: RunningExchange;
    let api: SigningClient;

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
    });

    afterAll(async () => {
      await server?.close();
      await backend?.cleanup();
    });

    const internal = async (
      method: string,
      path: string,
      body?: unknown,
      secret: string | null = backend.env.EXCHANGE_SERVICE_SECRET!,
    ): Promise<Answer> => {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (secret !== null) headers["x-service-secret"] = secret;
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: response.status, headers: response.headers, body: parsed, text };
    };
    const hold = (body: Record<string, unknown>) => internal("POST", "/internal/fee-holds", body);
    const settle = (holdId: string, reference?: string) =>
      internal("POST", `/internal/fee-holds/${holdId}/settle`, reference === undefined ? {} : { reference });
    const release = (holdId: string) => internal("POST", `/internal/fee-holds/${holdId}/release`);
    const get = (holdId: string) => internal("GET", `/internal/fee-holds/${holdId}`);
    const batch = (calls: Record<string, unknown>[]) => internal("POST", "/internal/fee-holds/batch", { calls });

    const eth = async (who: Credentials) => {
      const res = await api.signed(who, "GET", "/api/balances");
      assert.equal(res.status, 200, res.text);
      const row = res.body.find((b: any) => b.currencyCode === "ETH");
      return { available: String(row.available), locked: String(row.locked) };
    };
    const ledgerRow = async (currency: string) => {
      const res = await api.admin("GET", "/admin/ledger");
      assert.equal(res.status, 200, res.text);
      for (const row of res.body) assert.equal(row.balanced, true, JSON.stringify(row));
      return res.body.find((row: any) => row.currencyCode === currency);
    };
    const expectError = (res: Answer, status: number, code: string, mentions?: RegExp) => {
      assert.equal(res.status, status, res.text);
      assert.equal(res.body.code, code, res.text);
      if (mentions) assert.match(res.body.message, mentions);
    };

    it("refuses calls without the right service secret", async () => {
      const body = { holdId: randomUUID(), userId: randomUUID(), currency: "ETH", amount: "0.1" };
      expectError(await internal("POST", "/internal/fee-holds", body, null), 401, "UNAUTHORIZED");
      expectError(
        await internal("POST", "/internal/fee-holds", body, "wrong-secret-wrong-secret"),
        401,
        "UNAUTHORIZED",
      );
      expectError(await internal("GET", `/internal/fee-holds/${body.holdId}`, undefined, null), 401, "UNAUTHORIZED");
      expectError(await internal("POST", `/internal/fee-holds/${body.holdId}/settle`, {}, null), 401, "UNAUTHORIZED");
      expectError(await internal("POST", `/internal/fee-holds/${body.holdId}/release`, {}, null), 401, "UNAUTHORIZED");
    });

    it("holds a fee as locked, idempotently; settling burns it and the books still balance", async () => {
      const user = await api.user(0, { ETH: "1" });
      const holdId = randomUUID();
      const created = await hold({ holdId, userId: user.userId, currency: "ETH", amount: "0.25", memo: "spawn" });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(
        { ...created.body, createdAt: undefined },
        {
          holdId,
          userId: user.userId,
          currency: "ETH",
          amount: "0.25",
          status: "held",
          reference: null,
          createdAt: undefined,
          resolvedAt: null,
        },
      );
      assert.match(created.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(await eth(user), { available: "0.75", locked: "0.25" });

      // The same hold again (the amount as a JSON number this time): the stored row, nothing more held.
      const repeat = await hold({ holdId, userId: user.userId, currency: "ETH", amount: 0.25 });
      assert.equal(repeat.status, 200, repeat.text);
      assert.equal(repeat.headers.get("idempotent-replay"), "true");
      assert.deepEqual(repeat.body, created.body);
      assert.deepEqual(await eth(user), { available: "0.75", locked: "0.25" });
      expectError(await hold({ holdId, userId: user.userId, currency: "ETH", amount: "0.26" }), 409, "HOLD_CONFLICT");
      expectError(
        await hold({ holdId, userId: user.userId, currency: "USDT", amount: "0.25" }),
        409,
        "HOLD_CONFLICT",
        /0\.25 ETH/,
      );
      assert.deepEqual((await get(holdId)).body, created.body);
      const before = await ledgerRow("ETH");

      const settled = await settle(holdId, "0xabc123");
      assert.equal(settled.status, 200, settled.text);
      assert.equal(settled.body.status, "settled");
      assert.equal(settled.body.reference, "0xabc123");
      assert.equal(typeof settled.body.resolvedAt, "string");
      assert.deepEqual(await eth(user), { available: "0.75", locked: "0" });
      const after = await ledgerRow("ETH");
      assert.equal(ethMinus(after.burned, before.burned), "0.25");
      assert.equal(after.deposited, before.deposited);

      // Settling again answers the settled hold (its first reference kept); releasing it is a conflict.
      const again = await settle(holdId, "0xother");
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.body, settled.body);
      expectError(await release(holdId), 409, "HOLD_CONFLICT", /settled/);
      // A repeated hold after the settle answers the settled hold and holds nothing.
      const late = await hold({ holdId, userId: user.userId, currency: "ETH", amount: "0.25" });
      assert.equal(late.status, 200, late.text);
      assert.equal(late.body.status, "settled");
      assert.deepEqual(await eth(user), { available: "0.75", locked: "0" });
      assert.deepEqual((await get(holdId)).body, settled.body);
    });

    it("releases a hold back to available, idempotently; settling it then is a conflict", async () => {
      const user = await api.user(0, { ETH: "1" });
      const holdId = randomUUID();
      assert.equal((await hold({ holdId, userId: user.userId, currency: "ETH", amount: "0.4" })).status, 201);
      assert.deepEqual(await eth(user), { available: "0.6", locked: "0.4" });
      const burned = (await ledgerRow("ETH")).burned;
      const released = await release(holdId);
      assert.equal(released.status, 200, released.text);
      assert.equal(released.body.status, "released");
      assert.equal(released.body.reference, null);
      assert.deepEqual(await eth(user), { available: "1", locked: "0" });
      const again = await release(holdId);
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.body, released.body);
      expectError(await settle(holdId, "0xabc"), 409, "HOLD_CONFLICT", /released/);
      assert.deepEqual(await eth(user), { available: "1", locked: "0" });
      assert.equal((await ledgerRow("ETH")).burned, burned, "a release burns nothing");
    });

    it("a release that overtakes its hold (a caller that gave up on a hold in flight) leaves nothing locked: the late hold is refused", async () => {
      const user = await api.user(0, { ETH: "1" });
      // The writes' reconcile releases what a dead writes thread left open, its hold still on the way.
      const holdId = randomUUID();
      const released = await release(holdId);
      expectError(released, 404, "NOT_FOUND");
      const late = await hold({ holdId, userId: user.userId, currency: "ETH", amount: "0.01", memo: "spawn fee" });
      assert.deepEqual(await eth(user), { available: "1", locked: "0" }, "the late hold locked nothing");
      expectError(late, 409, "HOLD_CONFLICT", /released before it was held/);
      assert.match(released.body.message, /arriving later is refused/);
      expectError(await get(holdId), 404, "NOT_FOUND");
      // The same through the batch route the writes use, the release and the late hold in one
      // request or in two.
      const batched = randomUUID();
      const answer = await batch([
        { action: "release", holdId: batched },
        { action: "hold", holdId: batched, userId: user.userId, currency: "ETH", amount: "0.01" },
      ]);
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(
        answer.body.results.map((r: any) => [r.status, r.error?.code]),
        [
          [404, "NOT_FOUND"],
          [409, "HOLD_CONFLICT"],
        ],
      );
      const later = randomUUID();
      assert.equal((await batch([{ action: "release", holdId: later }])).body.results[0].status, 404);
      const lateInBatch = await batch([
        { action: "hold", holdId: later, userId: user.userId, currency: "ETH", amount: "0.01" },
      ]);
      assert.deepEqual(
        [lateInBatch.body.results[0].status, lateInBatch.body.results[0].error?.code],
        [409, "HOLD_CONFLICT"],
      );
      assert.deepEqual(await eth(user), { available: "1", locked: "0" });
      // A settle of an unknown id leaves no tombstone: only a release gives a hold up.
      const settledFirst = randomUUID();
      expectError(await settle(settledFirst), 404, "NOT_FOUND");
      assert.equal(
        (await hold({ holdId: settledFirst, userId: user.userId, currency: "ETH", amount: "0.01" })).status,
        201,
      );
      assert.equal((await release(settledFirst)).status, 200);
      assert.deepEqual(await eth(user), { available: "1", locked: "0" });
    });

    it("rounds the amount up to the currency's decimals", async () => {
      const user = await api.user(0, { ETH: "1" });
      const holdId = randomUUID();
      const created = await hold({ holdId, userId: user.userId, currency: "ETH", amount: "0.1000000000000000001" });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.amount, "0.100000000000000001");
      const repeat = await hold({ holdId, userId: user.userId, currency: "ETH", amount: "0.100000000000000001" });
      assert.equal(repeat.status, 200, "the rounded amount is the same hold");
      assert.equal((await release(holdId)).status, 200);
    });

    it("refuses more than the available balance, unknown users, currencies and holds, and bad input", async () => {
      const user = await api.user(0, { ETH: "0.5" });
      expectError(
        await hold({ holdId: randomUUID(), userId: user.userId, currency: "ETH", amount: "0.6" }),
        400,
        "INSUFFICIENT_BALANCE",
        /0\.5 ETH available, 0\.6 required/,
      );
      assert.deepEqual(await eth(user), { available: "0.5", locked: "0" });
      expectError(
        await hold({ holdId: randomUUID(), userId: randomUUID(), currency: "ETH", amount: "0.1" }),
        404,
        "NOT_FOUND",
      );
      expectError(
        await hold({ holdId: randomUUID(), userId: user.userId, currency: "NOPE", amount: "0.1" }),
        400,
        "UNKNOWN_CURRENCY",
      );
      expectError(
        await hold({ holdId: "not-a-uuid", userId: user.userId, currency: "ETH", amount: "0.1" }),
        400,
        "INVALID_PARAM",
        /holdId/,
      );
      for (const amount of ["0", "-1", "abc", "0.0"])
        expectError(
          await hold({ holdId: randomUUID(), userId: user.userId, currency: "ETH", amount }),
          400,
          "INVALID_PARAM",
          /amount/,
        );
      const missing = randomUUID();
      expectError(await get(missing), 404, "NOT_FOUND");
      expectError(await settle(missing), 404, "NOT_FOUND");
      expectError(await release(missing), 404, "NOT_FOUND");
      expectError(await internal("GET", "/internal/fee-holds/nope"), 400, "INVALID_PARAM", /holdId/);
      expectError(
        await internal("POST", `/internal/fee-holds/${missing}/settle`, { reference: "\u0000" }),
        400,
        "INVALID_PARAM",
        /reference/,
      );
    });

    it("lets exactly the concurrent holds that fit succeed", async () => {
      const user = await api.user(0, { ETH: "1" });
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          hold({ holdId: randomUUID(), userId: user.userId, currency: "ETH", amount: "0.3" }),
        ),
      );
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [201, 201, 201, 400, 400, 400, 400, 400, 400, 400], JSON.stringify(statuses));
      for (const a of answers.filter((a) => a.status === 400)) assert.equal(a.body.code, "INSUFFICIENT_BALANCE");
      assert.deepEqual(await eth(user), { available: "0.1", locked: "0.9" });
      // The same hold sent many times at once is held once.
      const holdId = randomUUID();
      const same = await Promise.all(
        Array.from({ length: 6 }, () => hold({ holdId, userId: user.userId, currency: "ETH", amount: "0.05" })),
      );
      assert.deepEqual(same.map((a) => a.status).sort(), [200, 200, 200, 200, 200, 201]);
      assert.deepEqual(await eth(user), { available: "0.05", locked: "0.95" });
      // Settles and releases of one hold racing: one way wins, every answer agrees with it.
      const race = await Promise.all([settle(holdId, "0x1"), release(holdId), settle(holdId, "0x2"), release(holdId)]);
      const winner = (await get(holdId)).body.status;
      for (const [i, answer] of race.entries()) {
        const asked = i % 2 === 0 ? "settled" : "released";
        if (asked === winner) assert.equal(answer.status, 200, answer.text);
        else expectError(answer, 409, "HOLD_CONFLICT");
      }
      assert.deepEqual(
        await eth(user),
        winner === "settled" ? { available: "0.05", locked: "0.9" } : { available: "0.1", locked: "0.9" },
      );
      await ledgerRow("ETH");
    });

    it("answers a batch's calls in order, each as its own route would, sharing commits", async () => {
      const rich = await api.user(0, { ETH: "1" });
      const poor = await api.user(0, { ETH: "0.1" });
      const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
      const burned = (await ledgerRow("ETH")).burned;
      const answer = await batch([
        { action: "hold", holdId: a, userId: rich.userId, currency: "ETH", amount: "0.25", memo: "spawn fee" },
        { action: "hold", holdId: b, userId: rich.userId, currency: "ETH", amount: 0.5 },
        { action: "hold", holdId: c, userId: poor.userId, currency: "ETH", amount: "0.2" },
        // Calls on one hold run in the order given: a, just held above, is settled here.
        { action: "settle", holdId: a, reference: "0xaaa" },
        { action: "release", holdId: randomUUID() },
        { action: "hold", holdId: randomUUID(), userId: randomUUID(), currency: "ETH", amount: "0.1" },
        { action: "hold", holdId: randomUUID(), userId: rich.userId, currency: "NOPE", amount: "0.1" },
      ]);
      assert.equal(answer.status, 200, answer.text);
      const results = answer.body.results as any[];
      assert.deepEqual(
        results.map((r) => [r.status, r.hold?.status ?? r.error.code]),
        [
          [201, "held"],
          [201, "held"],
          [400, "INSUFFICIENT_BALANCE"],
          [200, "settled"],
          [404, "NOT_FOUND"],
          [404, "NOT_FOUND"],
          [400, "UNKNOWN_CURRENCY"],
        ],
      );
      assert.equal(results[0].hold.holdId, a);
      assert.equal(results[3].hold.reference, "0xaaa");
      assert.match(results[2].error.message, /0\.1 ETH available, 0\.2 required/);
      assert.deepEqual(await eth(rich), { available: "0.25", locked: "0.5" });
      assert.deepEqual(await eth(poor), { available: "0.1", locked: "0" });
      assert.equal(ethMinus((await ledgerRow("ETH")).burned, burned), "0.25");
      // The same calls again are repeats: the stored holds, nothing moves.
      const again = await batch([
        { action: "hold", holdId: b, userId: rich.userId, currency: "ETH", amount: "0.5" },
        { action: "settle", holdId: a, reference: "0xother" },
        { action: "release", holdId: b },
        { action: "settle", holdId: b },
      ]);
      assert.deepEqual(
        (again.body.results as any[]).map((r) => [r.status, r.hold?.status ?? r.error.code]),
        [
          [200, "held"],
          [200, "settled"],
          [200, "released"],
          [409, "HOLD_CONFLICT"],
        ],
      );
      assert.equal(again.body.results[1].hold.reference, "0xaaa", "the first reference is kept");
      assert.deepEqual(await eth(rich), { available: "0.75", locked: "0" });
      await ledgerRow("ETH");
    });

    it("lets exactly the holds that fit succeed when they race in batches and alone", async () => {
      const user = await api.user(0, { ETH: "1" });
      const call = () => ({
        action: "hold",
        holdId: randomUUID(),
        userId: user.userId,
        currency: "ETH",
        amount: "0.1",
      });
      const answers = await Promise.all([
        batch(Array.from({ length: 6 }, call)),
        batch(Array.from({ length: 6 }, call)),
        ...Array.from({ length: 4 }, () => hold(call())),
      ]);
      const statuses = [
        ...answers.slice(0, 2).flatMap((a) => (a.body.results as any[]).map((r) => r.status)),
        ...answers.slice(2).map((a) => a.status),
      ];
      assert.equal(statuses.filter((s) => s === 201).length, 10, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 400).length, 6, JSON.stringify(statuses));
      assert.deepEqual(await eth(user), { available: "0", locked: "1" });
      await ledgerRow("ETH");
    });

    it("refuses a batch that is not valid as a whole, and runs none of it", async () => {
      const user = await api.user(0, { ETH: "1" });
      const good = { action: "hold", holdId: randomUUID(), userId: user.userId, currency: "ETH", amount: "0.1" };
      expectError(await batch([]), 400, "INVALID_PARAM", /calls/);
      expectError(await batch([good, { ...good, holdId: "nope" }]), 400, "INVALID_PARAM", /holdId/);
      expectError(await batch([good, { action: "burn", holdId: randomUUID() }]), 400, "INVALID_PARAM");
      expectError(await batch([{ action: "release", holdId: randomUUID(), amount: "1" }]), 400, "INVALID_PARAM");
      expectError(
        await batch(Array.from({ length: 101 }, () => ({ action: "release", holdId: randomUUID() }))),
        400,
        "INVALID_PARAM",
        /calls/,
      );
      expectError(await internal("POST", "/internal/fee-holds/batch", { calls: [good] }, null), 401, "UNAUTHORIZED");
      assert.deepEqual(await eth(user), { available: "1", locked: "0" }, "nothing of a refused batch ran");
      expectError(await get(good.holdId), 404, "NOT_FOUND");
    });

    it("keeps open holds across a restart; they can then be settled or released", async () => {
      const user = await api.user(0, { ETH: "1" });
      const toSettle = randomUUID();
      const toRelease = randomUUID();
      assert.equal((await hold({ holdId: toSettle, userId: user.userId, currency: "ETH", amount: "0.2" })).status, 201);
      assert.equal(
        (await hold({ holdId: toRelease, userId: user.userId, currency: "ETH", amount: "0.3" })).status,
        201,
      );
      const burnedBefore = (await ledgerRow("ETH")).burned;
      await server.close();
      await start();
      assert.deepEqual(await eth(user), { available: "0.5", locked: "0.5" });
      assert.equal((await get(toSettle)).body.status, "held");
      // The restored hold is still a hold: the same id again is a repeat, not a second hold.
      assert.equal((await hold({ holdId: toSettle, userId: user.userId, currency: "ETH", amount: "0.2" })).status, 200);
      assert.equal((await settle(toSettle, "0xafter")).body.status, "settled");
      assert.equal((await release(toRelease)).body.status, "released");
      assert.deepEqual(await eth(user), { available: "0.8", locked: "0" });
      assert.equal(ethMinus((await ledgerRow("ETH")).burned, burnedBefore), "0.2");
      // And a settled hold stays settled across another restart.
      await server.close();
      await start();
      assert.equal((await get(toSettle)).body.status, "settled");
      expectError(await release(toSettle), 409, "HOLD_CONFLICT");
      assert.deepEqual(await eth(user), { available: "0.8", locked: "0" });
      await ledgerRow("ETH");
    });

    it("documents the fee-hold routes and their errors", async () => {
      const doc = (await (await fetch(`${server.url}/swagger/v1/swagger.json`)).json()) as any;
      const create = doc.paths["/internal/fee-holds"].post;
      assert.deepEqual(Object.keys(create.responses).sort(), ["201", "400", "401", "404", "409", "429", "500", "503"]);
      assert.match(create.responses["400"].description, /INSUFFICIENT_BALANCE/);
      assert.match(create.responses["409"].description, /HOLD_CONFLICT/);
      assert.deepEqual(create.security, [{ ServiceSecret: [] }]);
      const body = create.requestBody.content["application/json"].schema;
      assert.deepEqual(body.required.sort(), ["amount", "currency", "holdId", "userId"]);
      assert.equal(body.properties.amount.type, "string");
      const answer = create.responses["201"].content["application/json"].schema;
      assert.deepEqual(Object.keys(answer.properties).sort(), [
        "amount",
        "createdAt",
        "currency",
        "holdId",
        "reference",
        "resolvedAt",
        "status",
        "userId",
      ]);
      for (const action of ["settle", "release"]) {
        const op = doc.paths[`/internal/fee-holds/{holdId}/${action}`].post;
        assert.match(op.responses["409"].description, /HOLD_CONFLICT/);
        assert.match(op.responses["404"].description, /NOT_FOUND/);
      }
      assert.ok(doc.paths["/internal/fee-holds/{holdId}"].get.responses["404"]);
      const batched = doc.paths["/internal/fee-holds/batch"].post;
      assert.deepEqual(batched.security, [{ ServiceSecret: [] }]);
      assert.ok(batched.responses["200"].content["application/json"].schema.properties.results);
    });
  });
}
