import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { batchStatement, createCommitter } from "./committer.ts";
import { openDb } from "./db.ts";
import { migrate } from "./migrations.ts";
import { getOrder, loadState } from "./reads.ts";
import type { OrderRow, Queryable, WriteUnit } from "./types.ts";

const order = (id: string, patch: Partial<OrderRow> = {}): OrderRow => ({
  id,
  userId: "00000000-0000-4000-8000-000000000001",
  pairCode: "ALPHA_USDT",
  clientOrderId: null,
  isBid: true,
  type: "limit",
  timeInForce: "GTC",
  postOnly: false,
  selfTradePrevention: "cancel_taker",
  priceTicks: 5000,
  amountLots: 100,
  quoteBudget: null,
  filledLots: 0,
  remainingLots: 100,
  filledQuote: 0n,
  status: "open",
  reason: null,
  seq: 1,
  createdAt: 1,
  updatedAt: 1,
  ...patch,
});

/** A database that records statements and answers when told to. */
function fakeDb() {
  const calls: { params: unknown[]; release: () => void; fail: (e: Error) => void }[] = [];
  const db: Queryable = {
    query: (_sql, params) =>
      new Promise((resolve, reject) => calls.push({ params: params ?? [], release: () => resolve([]), fail: reject })) as never,
  };
  return { db, calls };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("createCommitter", () => {
  it("groups units that arrive during a commit into the next one, in order", async () => {
    const { db, calls } = fakeDb();
    const committer = createCommitter(db, { onFatal: () => assert.fail("no failure expected") });
    const done: number[] = [];
    const first = committer.commit({ orders: [order("a")] }).then(() => done.push(1));
    await tick();
    const second = committer.commit({ orders: [order("b", { seq: 2 })] }).then(() => done.push(2));
    const third = committer.commit({ orders: [order("c", { seq: 3 })] }).then(() => done.push(3));
    assert.equal(calls.length, 1, "one statement in flight");
    calls[0].release();
    await first;
    await tick();
    assert.equal(calls.length, 2, "the two waiting units went together");
    assert.deepEqual(JSON.parse(calls[1].params[0] as string).map((r: { id: string }) => r.id), ["b", "c"]);
    calls[1].release();
    await Promise.all([second, third]);
    assert.deepEqual(done, [1, 2, 3]);
  });

  it("never strands a unit committed by a caller woken from the previous batch", async () => {
    const { db, calls } = fakeDb();
    const committer = createCommitter(db, { onFatal: () => {} });
    let followUp: Promise<void> | undefined;
    const first = committer.commit({ orders: [order("a")] }).then(() => {
      followUp = committer.commit({ orders: [order("b", { seq: 2 })] });
    });
    await tick();
    calls[0].release();
    await first;
    await tick();
    assert.equal(calls.length, 2, "the follow-up unit started its own commit");
    calls[1].release();
    await followUp;
    await committer.close();
  });

  it("fails every waiting unit and every later one once a commit fails, and reports it once", async () => {
    const { db, calls } = fakeDb();
    const fatal: unknown[] = [];
    const committer = createCommitter(db, { onFatal: (error) => fatal.push(error) });
    const first = committer.commit({ orders: [order("a")] });
    await tick();
    const waiting = committer.commit({ orders: [order("b", { seq: 2 })] });
    calls[0].fail(new Error("disk full"));
    await assert.rejects(first, /disk full/);
    await assert.rejects(waiting, /disk full/);
    await assert.rejects(committer.commit({ orders: [order("c", { seq: 3 })] }), /disk full/);
    assert.equal(fatal.length, 1);
    assert.equal(calls.length, 1, "nothing is written after a failure");
  });
});

describe("batchStatement", () => {
  it("keeps the last version of a row touched twice and writes nothing for empty units", () => {
    assert.equal(batchStatement([{}, { orders: [] }]), null);
    const statement = batchStatement([{ orders: [order("a")] }, { orders: [order("a", { status: "filled", remainingLots: 0, filledLots: 100 })] }])!;
    const rows = JSON.parse(statement.params[0]);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].status, "filled");
  });

  it("writes a batch atomically in one statement that a real database accepts (PGlite)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "committer-"));
    const db = await openDb({ dataDir: dir, schema: "exchange" });
    try {
      await migrate(db);
      const committer = createCommitter(db, { onFatal: (error) => assert.fail(String(error)) });
      const user = "00000000-0000-4000-8000-000000000001";
      const unit: WriteUnit = {
        orders: [order("00000000-0000-4000-8000-00000000000a", { quoteBudget: 123456789012345678901234567890n })],
        entries: [{ kind: "order-hold", ref: "x", postings: [{ account: { kind: "available", userId: user }, currency: "USDT", delta: -5n }] }],
        balances: [{ userId: user, currency: "USDT", available: 10n ** 30n, locked: 5n }],
        fees: [{ currency: "USDT", amount: 7n }],
      };
      await committer.commit(unit);
      const stored = await getOrder(db, "00000000-0000-4000-8000-00000000000a");
      assert.equal(stored?.quoteBudget, 123456789012345678901234567890n, "numeric money survives exactly");
      const state = await loadState(db);
      assert.deepEqual(state.balances, [{ userId: user, currency: "USDT", available: 10n ** 30n, locked: 5n }]);
      assert.deepEqual(state.fees, [{ currency: "USDT", amount: 7n }]);
      assert.equal(state.openOrders.length, 1);
      // A unit that breaks a constraint (negative balance) leaves nothing of its batch behind.
      const broken = createCommitter(db, { onFatal: () => {} });
      await assert.rejects(
        broken.commit({ orders: [order("00000000-0000-4000-8000-00000000000b", { seq: 2 })], balances: [{ userId: user, currency: "ETH", available: -1n, locked: 0n }] }),
      );
      assert.equal(await getOrder(db, "00000000-0000-4000-8000-00000000000b"), null);
    } finally {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
