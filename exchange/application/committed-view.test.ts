import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, it } from "vitest";
import { mulberry32 } from "../../lib/random.ts";
import { createKeyVault, generateApiKeyPair, parseServerKey } from "../adapters/auth/index.ts";
import {
  createCommitter,
  exchangeStore,
  loadState,
  type Db,
  type GroupCommitter,
  type OrderRow,
  type WriteUnit,
} from "../adapters/store/index.ts";
import { orderRow } from "../../support/exchange/order-row.ts";
import { CommittedView } from "./committed-view.ts";
import { Exchange } from "./exchange.ts";
import { openDemoDb } from "../../support/exchange/demo-db.ts";

const SEED = Number(process.env.VIEW_SEED ?? Date.now() % 1_000_000);
console.log(`# committed view property test: VIEW_SEED=${SEED}`);

/** A resting order on pair "P" of user "u1": 10 lots at 100 ticks. */
const open = (id: string, patch: Partial<OrderRow> = {}): OrderRow =>
  orderRow(id, {
    userId: "u1",
    pairCode: "P",
    priceTicks: 100,
    amountLots: 10,
    remainingLots: 10,
    createdAt: 0,
    updatedAt: 0,
    ...patch,
  });

describe("CommittedView", () => {
  it("aggregates open orders into levels, best first, and forgets them when they close", () => {
    const view = CommittedView.of({
      balances: [],
      fees: [],
      openOrders: [
        open("a"),
        open("b", { priceTicks: 101, seq: 2 }),
        open("c", { isBid: false, priceTicks: 105, seq: 3 }),
      ],
    });
    assert.deepEqual(view.levels("P", true, 10), [
      { priceTicks: 101, lots: 10n },
      { priceTicks: 100, lots: 10n },
    ]);
    assert.equal(view.best("P", false), 105);
    const before = view.version("P");
    view.apply({
      orders: [
        open("b", { priceTicks: 101, seq: 2, remainingLots: 4, filledLots: 6 }),
        open("d", { priceTicks: 100, seq: 4 }),
      ],
    });
    assert.ok(view.version("P") > before);
    assert.deepEqual(view.levels("P", true, 1), [{ priceTicks: 101, lots: 4n }]);
    assert.deepEqual(view.levels("P", true, 10)[1], { priceTicks: 100, lots: 20n });
    view.apply({
      orders: [
        open("b", { priceTicks: 101, seq: 2, remainingLots: 0, status: "filled" }),
        open("c", { isBid: false, priceTicks: 105, status: "cancelled" }),
      ],
    });
    assert.equal(view.best("P", true), 100);
    assert.equal(view.best("P", false), null);
    assert.deepEqual(
      view.openOrdersOf("u1").map((o) => o.id),
      ["d", "a"],
    );
    // A closed order that was never open (an IOC that missed) changes nothing.
    const version = view.version("P");
    view.apply({ orders: [open("e", { status: "cancelled" })] });
    assert.equal(view.version("P"), version);
  });

  it("never reuses a version across views, so caches keyed by it cannot serve an old book after a reload", () => {
    const first = CommittedView.of({ balances: [], fees: [], openOrders: [open("a")] });
    first.apply({ orders: [open("a", { remainingLots: 5 })] });
    const reloaded = CommittedView.of({ balances: [], fees: [], openOrders: [open("a")] });
    assert.notEqual(reloaded.version("P"), first.version("P"));
  });
});

/**
 * Property: random commands through a real exchange on PGlite; after every committed batch the
 * view built from WriteUnits equals a view rebuilt from the database (loadState), and once
 * everything has committed it equals the working books and ledger too.
 */
describe("CommittedView against the database (property)", () => {
  let dir: string;
  let db: Db;
  let exchange: Exchange;
  let committer: GroupCommitter;

  beforeAll(async () => {
    ({ dir, db } = await openDemoDb("committed-view-"));
    committer = createCommitter(db);
    exchange = await Exchange.open({
      store: exchangeStore(db),
      committer,
      vault: createKeyVault(parseServerKey("44".repeat(32))),
      generateKeyPair: generateApiKeyPair,
    });
  });

  afterAll(async () => {
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it(`applying committed units equals rebuilding from the stored rows (VIEW_SEED=${SEED})`, async () => {
    const random = mulberry32(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const users = [];
    for (let i = 0; i < 4; i++) {
      const user = await exchange.createUser(i % 2 === 0 ? 0 : 25, null);
      await exchange.deposit({ userId: user.id, currency: "ALPHA", amount: "5000", reference: null });
      await exchange.deposit({ userId: user.id, currency: "USDT", amount: "5000", reference: null });
      users.push(user.id);
    }
    const units: WriteUnit[] = [];
    committer.onCommitted((batch) => units.push(...batch));
    const replay = CommittedView.of(await loadState(db));
    const holdIds: string[] = [];
    let checks = 0;
    // What the checks covered: a book and open fee holds at some checkpoint (a random run may
    // well end with an empty book, every order filled or cancelled).
    let sawBook = false;
    let sawOpenFeeHolds = false;
    for (let round = 0; round < 30; round++) {
      // A burst of concurrent commands, so batches hold many units.
      const burst: Promise<unknown>[] = [];
      for (let i = 0; i < 12; i++) {
        const user = pick(users);
        const roll = random();
        if (roll < 0.6) {
          burst.push(
            exchange.placeOrder(user, {
              currencyPairCode: "ALPHA_USDT",
              isBid: random() < 0.5,
              type: "limit",
              amount: String(2 + Math.floor(random() * 20)),
              price: (0.9 + Math.floor(random() * 20) / 100).toFixed(2),
              timeInForce: pick(["GTC", "GTC", "GTC", "IOC"] as const),
            }),
          );
        } else if (roll < 0.72) {
          const mine = exchange.openOrdersOf(user);
          if (mine.length > 0) burst.push(exchange.cancelOrder(user, pick(mine).id));
        } else if (roll < 0.76) {
          burst.push(exchange.cancelAll(user, pick([undefined, "ALPHA_USDT"])));
        } else if (roll < 0.84) {
          // Fee holds share the locked balances with the orders' holds; ids are sometimes repeated.
          const holdId = holdIds.length > 0 && random() < 0.2 ? pick(holdIds) : randomUUID();
          holdIds.push(holdId);
          burst.push(
            exchange.holdFee({
              holdId,
              userId: user,
              currency: "USDT",
              amount: String(1 + Math.floor(random() * 400)),
            }),
          );
        } else if (roll < 0.92 && holdIds.length > 0) {
          const holdId = pick(holdIds);
          burst.push(random() < 0.5 ? exchange.settleFeeHold(holdId, "0xtx") : exchange.releaseFeeHold(holdId));
        } else if (roll < 0.96) {
          burst.push(exchange.withdraw({ userId: user, currency: "USDT", amount: "5", address: "0xabc" }));
        } else {
          burst.push(exchange.deposit({ userId: user, currency: "ALPHA", amount: "10", reference: null }));
        }
      }
      // Refusals (insufficient balance, an order already gone) are fine: they change nothing.
      await Promise.allSettled(burst);
      for (const unit of units.splice(0)) replay.apply(unit);
      const loaded = await loadState(db);
      const stored = CommittedView.of(loaded).describe();
      assert.deepEqual(
        [...exchange.ledger.holds.values()]
          .filter((h) => h.orderId.startsWith("fee:"))
          .map((h) => [h.orderId.slice(4), h.userId, h.amount])
          .sort(),
        loaded.openFeeHolds.map((h) => [h.id, h.userId, h.amount]).sort(),
        `round ${round}: the working fee holds differ from the stored open ones`,
      );
      assert.deepEqual(
        exchange.committed.describe(),
        stored,
        `round ${round}: the committed view differs from the database`,
      );
      assert.deepEqual(replay.describe(), stored, `round ${round}: replaying the units differs from the database`);
      // Everything has committed, so the working state is the committed state.
      for (const isBid of [true, false]) {
        const working = exchange
          .market("ALPHA_USDT")
          .book.depth(isBid, Infinity)
          .map((l) => ({ priceTicks: l.price, lots: l.amount }));
        assert.deepEqual(
          exchange.committed.levels("ALPHA_USDT", isBid, Infinity),
          working,
          `round ${round}: committed book differs from the working book`,
        );
      }
      for (const row of await exchange.reconcile())
        assert.ok(row.balanced, `round ${round}: ${row.currency} unbalanced`);
      sawBook ||=
        exchange.committed.levels("ALPHA_USDT", true, 1).length +
          exchange.committed.levels("ALPHA_USDT", false, 1).length >
        0;
      sawOpenFeeHolds ||= loaded.openFeeHolds.length > 0;
      checks++;
    }
    assert.equal(checks, 30);
    const usdt = (await exchange.reconcile()).find((row) => row.currency === "USDT")!;
    assert.ok(usdt.burned > 0n, "the run settled fee holds");
    assert.ok(sawOpenFeeHolds, "some checkpoint had fee holds open");
    assert.ok(sawBook, "some checkpoint had a book");
  });
});
