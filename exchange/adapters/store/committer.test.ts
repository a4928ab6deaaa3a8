import { UnavailableError } from "../../../lib/unavailable.ts";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "vitest";
import { batchStatement, createCommitter } from "./committer.ts";
import { openDb } from "./db.ts";
import { migrate } from "./migrations.ts";
import { getOrder, loadState } from "./reads.ts";
import { orderRow } from "../../../support/exchange/order-row.ts";
import type { Queryable, WriteUnit } from "./types.ts";

const order = orderRow;

/** A database that records statements and answers when told to. */
function fakeDb() {
  const calls: { params: unknown[]; release: () => void; fail: (e: Error) => void }[] = [];
  const db: Queryable = {
    query: (_sql, params) =>
      new Promise((resolve, reject) =>
        calls.push({ params: params ?? [], release: () => resolve([]), fail: reject }),
      ) as never,
  };
  return { db, calls };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("createCommitter", () => {
  it("groups units that arrive during a commit into the next one, in order", async () => {
    const { db, calls } = fakeDb();
    const committer = createCommitter(db);
    committer.onFailure(() => assert.fail("no failure expected"));
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
    assert.deepEqual(
      JSON.parse(calls[1].params[0] as string).map((r: { id: string }) => r.id),
      ["b", "c"],
    );
    calls[1].release();
    await Promise.all([second, third]);
    assert.deepEqual(done, [1, 2, 3]);
  });

  it("never strands a unit committed by a caller woken from the previous batch", async () => {
    const { db, calls } = fakeDb();
    const committer = createCommitter(db);
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
    const failures: unknown[] = [];
    const committer = createCommitter(db);
    committer.onFailure((error) => failures.push(error));
    const first = committer.commit({ orders: [order("a")] });
    await tick();
    const waiting = committer.commit({ orders: [order("b", { seq: 2 })] });
    calls[0].fail(new Error("disk full"));
    await assert.rejects(first, UnavailableError);
    await assert.rejects(waiting, /outcome is unknown/);
    assert.equal(committer.failed, true);
    await assert.rejects(committer.commit({ orders: [order("c", { seq: 3 })] }), UnavailableError);
    assert.throws(() => committer.admit(), UnavailableError, "callers can ask before they change memory");
    assert.equal(failures.length, 1);
    assert.match(String(failures[0]), /disk full/);
    assert.equal(calls.length, 1, "nothing is written after a failure");
    assert.equal(committer.pending, 0, "nothing is kept for the failed callers");
  });

  it("gives up a batch the database does not confirm within the timeout, and commits again after resume()", async () => {
    const { db, calls } = fakeDb();
    const failures: unknown[] = [];
    const committed: string[] = [];
    const committer = createCommitter(db, { timeoutMs: 30 });
    committer.onFailure((error) => failures.push(error));
    committer.onCommitted((units) => committed.push(...units.map((u) => u.orders![0].id)));
    // The hung statement is never answered: only the timeout can end the wait.
    await assert.rejects(committer.commit({ orders: [order("a")] }), /outcome is unknown/);
    assert.equal(failures.length, 1);
    assert.match(String(failures[0]), /within 30 ms/);
    assert.equal(committer.failed, true);
    committer.resume();
    assert.equal(committer.failed, false);
    const next = committer.commit({ orders: [order("b", { seq: 2 })] });
    await tick();
    assert.equal(calls.length, 2, "a fresh statement after resume()");
    calls[1].release();
    await next;
    assert.deepEqual(committed, ["b"], "only confirmed batches reach the committed listeners");
    // The given-up statement answering late changes nothing.
    calls[0].release();
    await tick();
    assert.deepEqual(committed, ["b"]);
    await committer.close();
  });

  it("answers every caller and reports a fatal error when a committed-batch listener throws (a bug), never hanging", async () => {
    const { db, calls } = fakeDb();
    const fatal: unknown[] = [];
    const committer = createCommitter(db, { onFatal: (error) => fatal.push(error) });
    committer.onFailure(() => assert.fail("a listener's bug is not a database failure"));
    committer.onCommitted(() => {
      throw new TypeError("view out of step");
    });
    const first = committer.commit({ orders: [order("a")] });
    await tick();
    const queued = committer.commit({ orders: [order("b", { seq: 2 })] });
    calls[0].release();
    // Without the fix these never settle (the drain loop died with `draining` still set).
    const settled = await Promise.race([
      Promise.allSettled([first, queued]),
      new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 2_000)),
    ]);
    assert.notEqual(settled, "hung", "callers were left waiting");
    for (const result of settled as PromiseSettledResult<void>[]) {
      assert.equal(result.status, "rejected");
      assert.match(String((result as PromiseRejectedResult).reason), /stopped after an internal error/);
    }
    assert.equal(fatal.length, 1);
    assert.match(String(fatal[0]), /view out of step/);
    assert.equal(calls.length, 1, "the queued unit was not written after the bug");
    // Stopped for good: new units are refused at once and resume() does not reopen it.
    assert.equal(committer.failed, true);
    committer.resume();
    assert.throws(() => committer.admit(), /stopped after an internal error/);
    await assert.rejects(committer.commit({ orders: [order("c", { seq: 3 })] }), /stopped after an internal error/);
    await committer.close();
  });

  it("refuses units beyond maxPending at once, counting the batch being written", async () => {
    const { db, calls } = fakeDb();
    const committer = createCommitter(db, { maxPending: 3 });
    const accepted = [committer.commit({ orders: [order("a")] })];
    await tick();
    accepted.push(
      committer.commit({ orders: [order("b", { seq: 2 })] }),
      committer.commit({ orders: [order("c", { seq: 3 })] }),
    );
    assert.equal(committer.pending, 3);
    assert.throws(() => committer.admit(), /Too many commands/);
    for (let i = 0; i < 1000; i++)
      await assert.rejects(committer.commit({ orders: [order(`x${i}`)] }), UnavailableError);
    assert.equal(committer.pending, 3, "refused units are not kept");
    assert.equal(committer.failed, false, "a full queue is not a failure");
    calls[0].release();
    await accepted[0];
    await tick();
    assert.equal(committer.pending, 2);
    committer.admit();
    calls[1].release();
    await Promise.all(accepted);
    assert.equal(committer.pending, 0);
  });

  it("tells committed listeners every batch in order before its callers wake", async () => {
    const { db, calls } = fakeDb();
    const committer = createCommitter(db);
    const seen: string[] = [];
    committer.onCommitted((units) => seen.push(units.map((u) => u.orders![0].id).join("+")));
    const first = committer.commit({ orders: [order("a")] }).then(() => seen.push("woke a"));
    await tick();
    const second = committer.commit({ orders: [order("b", { seq: 2 })] }).then(() => seen.push("woke b"));
    const third = committer.commit({ orders: [order("c", { seq: 3 })] }).then(() => seen.push("woke c"));
    calls[0].release();
    await first;
    await tick();
    calls[1].release();
    await Promise.all([second, third]);
    assert.deepEqual(seen, ["a", "woke a", "b+c", "woke b", "woke c"]);
  });
});

describe("batchStatement", () => {
  it("keeps the last version of a row touched twice and writes nothing for empty units", () => {
    assert.equal(batchStatement([{}, { orders: [] }]), null);
    const statement = batchStatement([
      { orders: [order("a")] },
      { orders: [order("a", { status: "filled", remainingLots: 0, filledLots: 100 })] },
    ])!;
    const rows = JSON.parse(statement.params[0]);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].status, "filled");
  });

  it("writes a batch atomically in one statement that a real database accepts (PGlite)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "committer-"));
    const db = await openDb({ dataDir: dir, schema: "exchange" });
    try {
      await migrate(db);
      const committer = createCommitter(db);
      committer.onFailure((error) => assert.fail(String(error)));
      const user = "00000000-0000-4000-8000-000000000001";
      const unit: WriteUnit = {
        orders: [order("00000000-0000-4000-8000-00000000000a", { quoteBudget: 123456789012345678901234567890n })],
        entries: [
          {
            kind: "order-hold",
            ref: "x",
            postings: [{ account: { kind: "available", userId: user }, currency: "USDT", delta: -5n }],
          },
        ],
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
      const broken = createCommitter(db);
      await assert.rejects(
        broken.commit({
          orders: [order("00000000-0000-4000-8000-00000000000b", { seq: 2 })],
          balances: [{ userId: user, currency: "ETH", available: -1n, locked: 0n }],
        }),
      );
      assert.equal(await getOrder(db, "00000000-0000-4000-8000-00000000000b"), null);
    } finally {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("createCommitter fail()", () => {
  it("fails the batch being written and every waiting unit at once, then refuses until resume()", async () => {
    const { db, calls } = fakeDb();
    const failures: unknown[] = [];
    const committer = createCommitter(db, { timeoutMs: 60_000 });
    committer.onFailure((error) => failures.push(error));
    const writing = committer.commit({ orders: [order("a")] });
    await tick();
    const waiting = committer.commit({ orders: [order("b", { seq: 2 })] });
    committer.fail(new Error("a read lost its connection"));
    await assert.rejects(writing, /outcome is unknown/);
    await assert.rejects(waiting, UnavailableError);
    assert.equal(committer.failed, true);
    committer.fail(new Error("again"));
    assert.equal(failures.length, 1, "reported once");
    assert.equal(calls.length, 1);
    committer.resume();
    const next = committer.commit({ orders: [order("c", { seq: 3 })] });
    await tick();
    calls[1].release();
    await next;
  });
});
