import { setTimeout as sleep } from "node:timers/promises";
import { UnavailableError } from "../../lib/unavailable.ts";
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, it } from "vitest";
import { createKeyVault, generateApiKeyPair, parseServerKey } from "../adapters/auth/index.ts";
import { createCommitter, exchangeStore, loadState, type Db } from "../adapters/store/index.ts";
import { CommittedView } from "./committed-view.ts";
import { Exchange } from "./exchange.ts";
import { openDemoDb, restingAsk } from "../../support/exchange/demo-db.ts";

// A command that throws after it began changing the books or the ledger (a bug) must not leave
// the exchange serving from memory that no longer matches the database: onFatal is called.

describe("Exchange: a throw in the middle of a command is fatal", () => {
  let dir: string;
  let db: Db;
  let exchange: Exchange;
  const fatal: unknown[] = [];

  beforeAll(async () => {
    ({ dir, db } = await openDemoDb("exchange-fatal-"));
    exchange = await Exchange.open({
      store: exchangeStore(db),
      committer: createCommitter(db),
      vault: createKeyVault(parseServerKey("33".repeat(32))),
      generateKeyPair: generateApiKeyPair,
      onFatal: (error) => fatal.push(error),
    });
  });

  afterAll(async () => {
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("reports a throw during settlement, and not an ordinary rejection", async () => {
    const { buyer } = await restingAsk(exchange);
    await assert.rejects(
      exchange.placeOrder(buyer.id, {
        currencyPairCode: "ALPHA_USDT",
        isBid: true,
        type: "limit",
        amount: "1000",
        price: "0.5",
      }),
      { code: "INSUFFICIENT_BALANCE" },
    );
    assert.equal(fatal.length, 0, "a refused order is a value, not a fatal error");
    // The fee of a trade is looked up while it settles, after the book has matched.
    exchange.reference.pairFees = () => {
      throw new Error("fee lookup failed");
    };
    await assert.rejects(
      exchange.placeOrder(buyer.id, {
        currencyPairCode: "ALPHA_USDT",
        isBid: true,
        type: "limit",
        amount: "10",
        price: "0.5",
      }),
      /fee lookup failed/,
    );
    assert.equal(fatal.length, 1);
    assert.match(String(fatal[0]), /fee lookup failed/);
  });
});

/** A database whose statements can be held (a dead network) and later let through (it heals). */
function faultyDb(db: Db) {
  let holding = false;
  const held: (() => void)[] = [];
  const gate = <T>(run: () => Promise<T>): Promise<T> =>
    holding ? new Promise<T>((resolve, reject) => held.push(() => run().then(resolve, reject))) : run();
  const faulty: Db = {
    kind: db.kind,
    query: (sql, params, options) => gate(() => db.query(sql, params, options)),
    transaction: (fn) => gate(() => db.transaction(fn)),
    writer: { query: (sql, params, options) => gate(() => db.writer.query(sql, params, options)) },
    fence: () => gate(() => db.fence()),
    close: () => db.close(),
  };
  return {
    db: faulty,
    hang: () => (holding = true),
    /** Lets everything held through, in order, as a healed network delivers what it buffered. */
    heal: () => {
      holding = false;
      for (const run of held.splice(0)) run();
    },
  };
}

describe("Exchange: a hung database", () => {
  let dir: string;
  let raw: Db;

  beforeAll(async () => {
    ({ dir, db: raw } = await openDemoDb("exchange-outage-"));
  });

  afterAll(async () => {
    await raw?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("refuses commands while the database is away, shows only committed state, and reloads by itself when it returns", async () => {
    const faulty = faultyDb(raw);
    const committer = createCommitter(faulty.db, { timeoutMs: 100 });
    const exchange = await Exchange.open({
      store: exchangeStore(faulty.db),
      committer,
      vault: createKeyVault(parseServerKey("55".repeat(32))),
      generateKeyPair: generateApiKeyPair,
      recoveryDelayMs: { min: 10, max: 40 },
      log: () => {},
    });
    const { seller, buyer } = await restingAsk(exchange);
    const bookBefore = exchange.committed.levels("ALPHA_USDT", false, 10);
    const buyerBefore = exchange.balances(buyer.id);

    // The order's clientOrderId lookup is already on its way when the database hangs; its commit is held.
    const lost = {
      currencyPairCode: "ALPHA_USDT",
      isBid: true,
      type: "limit",
      amount: "4",
      price: "0.5",
      clientOrderId: "lost-1",
    } as const;
    const hung = exchange.placeOrder(buyer.id, lost);
    faulty.hang();
    while (committer.pending === 0) await new Promise((resolve) => setImmediate(resolve));
    // While its commit waits, the trade it made in memory is not visible.
    assert.deepEqual(exchange.committed.levels("ALPHA_USDT", false, 10), bookBefore);
    assert.deepEqual(exchange.balances(buyer.id), buyerBefore);
    assert.equal(exchange.market("ALPHA_USDT").book.depth(false, 1)[0].amount, 600n, "the working book did trade");
    await assert.rejects(
      hung,
      (error: Error) => error instanceof UnavailableError && /outcome is unknown/.test(error.message),
    );
    assert.equal(exchange.ready, false);
    await assert.rejects(
      exchange.placeOrder(buyer.id, {
        currencyPairCode: "ALPHA_USDT",
        isBid: true,
        type: "limit",
        amount: "1",
        price: "0.4",
      }),
      UnavailableError,
    );
    await assert.rejects(exchange.cancelAll(seller.id), UnavailableError);
    await assert.rejects(
      exchange.store.getOrder("00000000-0000-4000-8000-000000000000"),
      UnavailableError,
      "reads that need the database fail at once",
    );
    assert.equal(committer.pending, 0);
    assert.deepEqual(exchange.balances(buyer.id), buyerBefore, "reads are served from the committed view");

    // The network heals: the held commit arrives late and is stored; the reload must see it.
    faulty.heal();
    const deadline = Date.now() + 10_000;
    while (!exchange.ready) {
      assert.ok(Date.now() < deadline, "the exchange did not recover");
      await sleep(10);
    }
    assert.deepEqual(
      exchange.committed.describe(),
      CommittedView.of(await loadState(raw)).describe(),
      "the committed view is the database",
    );
    assert.equal(
      exchange.committed.levels("ALPHA_USDT", false, 1)[0].lots,
      600n,
      "the late commit is in the reloaded book",
    );
    for (const isBid of [true, false]) {
      const working = exchange
        .market("ALPHA_USDT")
        .book.depth(isBid, Infinity)
        .map((l) => ({ priceTicks: l.price, lots: l.amount }));
      assert.deepEqual(
        exchange.committed.levels("ALPHA_USDT", isBid, Infinity),
        working,
        "the working book is the stored one",
      );
    }
    // Its client was told the outcome is unknown: a retry with the same clientOrderId finds it.
    const retry = await exchange.placeOrder(buyer.id, lost);
    assert.equal(retry.replay, true, "the retry found the order that committed late");
    assert.equal(retry.order.filledLots, 400);
    assert.equal(retry.fills.length, 1);
    const next = await exchange.placeOrder(buyer.id, {
      currencyPairCode: "ALPHA_USDT",
      isBid: true,
      type: "limit",
      amount: "2",
      price: "0.5",
    });
    assert.equal(next.fills.length, 1, "it trades again");
    for (const row of await exchange.reconcile())
      assert.equal(row.balanced, true, `${row.currency} does not reconcile`);
    await exchange.close();
  });

  it("answers a fee hold whose commit hung with an unknown outcome; after the reload a retry finds it, once", async () => {
    const faulty = faultyDb(raw);
    const committer = createCommitter(faulty.db, { timeoutMs: 100 });
    const exchange = await Exchange.open({
      store: exchangeStore(faulty.db),
      committer,
      vault: createKeyVault(parseServerKey("56".repeat(32))),
      generateKeyPair: generateApiKeyPair,
      recoveryDelayMs: { min: 10, max: 40 },
      log: () => {},
    });
    const user = await exchange.createUser(0, null);
    await exchange.deposit({ userId: user.id, currency: "USDT", amount: "100", reference: null });
    const first = "11111111-1111-4111-8111-111111111111";
    const lost = { holdId: "22222222-2222-4222-8222-222222222222", userId: user.id, currency: "USDT", amount: "40" };
    assert.equal(
      (await exchange.holdFee({ holdId: first, userId: user.id, currency: "USDT", amount: "30" })).created,
      true,
    );
    const usdt = () => exchange.balances(user.id).find((b) => b.currency === "USDT")!;
    assert.deepEqual({ ...usdt() }, { currency: "USDT", available: 70_000_000n, locked: 30_000_000n });

    // Its lookup is already on its way when the database hangs; its commit is held.
    const hung = exchange.holdFee(lost);
    faulty.hang();
    await assert.rejects(
      hung,
      (error: Error) => error instanceof UnavailableError && /outcome is unknown/.test(error.message),
    );
    assert.deepEqual({ ...usdt() }, { currency: "USDT", available: 70_000_000n, locked: 30_000_000n });
    await assert.rejects(exchange.settleFeeHold(first, "0xtx"), UnavailableError);
    await assert.rejects(exchange.feeHold(first), UnavailableError);

    faulty.heal();
    const deadline = Date.now() + 10_000;
    while (!exchange.ready) {
      assert.ok(Date.now() < deadline, "the exchange did not recover");
      await sleep(10);
    }
    // The late commit was stored and reloaded: the retry answers it and holds nothing more.
    const retry = await exchange.holdFee(lost);
    assert.equal(retry.created, false);
    assert.equal(retry.row.status, "held");
    assert.deepEqual({ ...usdt() }, { currency: "USDT", available: 30_000_000n, locked: 70_000_000n });
    // The settle refused during the outage changed nothing: the hold is still open.
    assert.equal((await exchange.settleFeeHold(first, "0xtx")).status, "settled");
    assert.equal((await exchange.releaseFeeHold(lost.holdId)).status, "released");
    assert.deepEqual({ ...usdt() }, { currency: "USDT", available: 70_000_000n, locked: 0n });
    for (const row of await exchange.reconcile())
      assert.equal(row.balanced, true, `${row.currency} does not reconcile`);
    await exchange.close();
  });
});

describe("Exchange: start-up checks fee holds against locked balances", () => {
  let dir: string;
  let db: Db;

  beforeAll(async () => {
    ({ dir, db } = await openDemoDb("exchange-fee-holds-"));
  });

  afterAll(async () => {
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const open = () =>
    Exchange.open({
      store: exchangeStore(db),
      committer: createCommitter(db),
      vault: createKeyVault(parseServerKey("57".repeat(32))),
      generateKeyPair: generateApiKeyPair,
    });

  it("rebuilds open fee holds as locked, and refuses stored holds that do not add up to them", async () => {
    const exchange = await open();
    const user = await exchange.createUser(0, null);
    await exchange.deposit({ userId: user.id, currency: "ETH", amount: "1", reference: null });
    const holdId = "33333333-3333-4333-8333-333333333333";
    await exchange.holdFee({ holdId, userId: user.id, currency: "ETH", amount: "0.5" });
    await exchange.close();

    const reopened = await open();
    assert.equal(reopened.ledger.holds.get(`fee:${holdId}`)?.amount, 500_000_000_000_000_000n);
    assert.deepEqual(reopened.ledger.balances.get(user.id)?.get("ETH"), {
      available: 500_000_000_000_000_000n,
      locked: 500_000_000_000_000_000n,
    });
    await reopened.close();

    // A hold marked released behind the exchange's back leaves its amount locked with no hold.
    await db.query(`update fee_holds set status = 'released' where id = $1`, [holdId]);
    await assert.rejects(
      open(),
      /stored state is inconsistent: .* 500000000000000000 ETH locked but open orders and fee holds hold 0/,
    );
    await db.query(`update fee_holds set status = 'held' where id = $1`, [holdId]);
    await (await open()).close();
  });
});
