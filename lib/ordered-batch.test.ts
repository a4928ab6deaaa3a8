import assert from "node:assert/strict";
import fc from "fast-check";
import { describe, it } from "vitest";
import { OrderedBatch } from "./ordered-batch.ts";

/** A sender that records each batch and answers when told to (or at once). */
function recorder(fail: (item: number) => boolean = () => false) {
  const batches: number[][] = [];
  const pending: (() => void)[] = [];
  let manual = false;
  const send = (items: readonly number[]) => {
    batches.push([...items]);
    const answer = () =>
      items.map(
        (item): PromiseSettledResult<number> =>
          fail(item)
            ? { status: "rejected", reason: new Error(`refused ${item}`) }
            : { status: "fulfilled", value: item * 10 },
      );
    if (!manual) return Promise.resolve(answer());
    return new Promise<PromiseSettledResult<number>[]>((resolve) => pending.push(() => resolve(answer())));
  };
  return {
    batches,
    send,
    hold: () => {
      manual = true;
    },
    answerNext: () => pending.shift()?.(),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("OrderedBatch", () => {
  it("sends each item once every earlier ticket is settled, in ticket order", async () => {
    const r = recorder();
    const batch = new OrderedBatch(r.send, 8);
    const [a, b, c] = [batch.take(), batch.take(), batch.take()];
    const answers = [batch.submit(c, 3), batch.submit(b, 2)];
    await tick();
    assert.deepEqual(r.batches, [], "nothing goes while ticket a is open");
    answers.push(batch.submit(a, 1));
    assert.deepEqual(await Promise.all(answers), [30, 20, 10]);
    assert.deepEqual(r.batches, [[1, 2, 3]]);
  });

  it("puts what became ready while a batch was out into the next one, up to maxBatch", async () => {
    const r = recorder();
    r.hold();
    const batch = new OrderedBatch(r.send, 2);
    const tickets = Array.from({ length: 5 }, () => batch.take());
    const answers = [batch.submit(tickets[0]!, 0)];
    for (let i = 1; i < 5; i++) answers.push(batch.submit(tickets[i]!, i));
    assert.deepEqual(r.batches, [[0]]);
    r.answerNext();
    await tick();
    assert.deepEqual(r.batches, [[0], [1, 2]]);
    r.answerNext();
    await tick();
    r.answerNext();
    assert.deepEqual(await Promise.all(answers), [0, 10, 20, 30, 40]);
    assert.deepEqual(r.batches, [[0], [1, 2], [3, 4]]);
  });

  it("send: an idle sender sends at once; a busy one gathers what comes for its next call", async () => {
    const r = recorder();
    r.hold();
    const batch = new OrderedBatch(r.send, 8);
    const first = batch.send(1);
    assert.deepEqual(r.batches, [[1]], "the first item did not wait for company");
    const later = [batch.send(2), batch.send(3), batch.send(4)];
    assert.deepEqual(r.batches, [[1]]);
    r.answerNext();
    assert.equal(await first, 10);
    await tick();
    assert.deepEqual(r.batches, [[1], [2, 3, 4]]);
    r.answerNext();
    assert.deepEqual(await Promise.all(later), [20, 30, 40]);
  });

  it("with a budget, closes a batch before the item that would pass it; a heavier item goes alone", async () => {
    const r = recorder();
    r.hold();
    // Weight = the item itself; at most 10 a batch, and at most 8 items.
    const batch = new OrderedBatch(r.send, 8, { weightOf: (item: number) => item, max: 10 });
    const items = [1, 4, 5, 2, 12, 3, 3, 3, 1];
    const tickets = items.map(() => batch.take());
    const answers = items.map((item, i) => batch.submit(tickets[i]!, item));
    for (let i = 0; i < 6; i++) {
      r.answerNext();
      await tick();
    }
    assert.deepEqual(
      await Promise.all(answers),
      items.map((item) => item * 10),
    );
    assert.deepEqual(r.batches, [[1], [4, 5], [2], [12], [3, 3, 3, 1]]);
  });

  it("a released ticket lets later ones go; releasing a submitted one changes nothing", async () => {
    const r = recorder();
    const batch = new OrderedBatch(r.send, 8);
    const [a, b] = [batch.take(), batch.take()];
    const answer = batch.submit(b, 2);
    batch.release(a);
    assert.equal(await answer, 20);
    batch.release(b);
    batch.release(a);
    assert.deepEqual(r.batches, [[2]]);
  });

  it("answers each item with its own result; a failed send fails only its batch", async () => {
    const r = recorder((item) => item === 2);
    const batch = new OrderedBatch(r.send, 8);
    const tickets = [batch.take(), batch.take(), batch.take()];
    const answers = await Promise.allSettled(tickets.map((t, i) => batch.submit(t, i + 1)));
    assert.deepEqual(
      answers.map((a) => (a.status === "fulfilled" ? a.value : (a.reason as Error).message)),
      [10, "refused 2", 30],
    );
    let calls = 0;
    const throwing = new OrderedBatch<number, number>(async () => {
      calls++;
      if (calls === 1) throw new Error("node away");
      return [{ status: "fulfilled", value: 1 }];
    }, 8);
    const [x, y] = [throwing.take(), throwing.take()];
    const first = throwing.submit(x, 1);
    await assert.rejects(first, /node away/);
    assert.equal(await throwing.submit(y, 2), 1, "the next batch still goes");
  });

  it("refuses a ticket that was never taken or is used twice", async () => {
    const batch = new OrderedBatch<number, number>(
      async (items) => items.map(() => ({ status: "fulfilled", value: 0 })),
      4,
    );
    await assert.rejects(batch.submit(0, 1), /not one waiting/);
    const t = batch.take();
    const first = batch.submit(t, 1);
    await assert.rejects(batch.submit(t, 1), /not one waiting/);
    assert.equal(await first, 0);
  });

  it("over random submit and release orders, sends every submitted item once, in ticket order", async () => {
    const seed = Number(process.env.ORDERED_BATCH_SEED ?? 20261125);
    console.log(`ordered-batch property seed (ORDERED_BATCH_SEED): ${seed}`);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ release: fc.boolean(), delay: fc.nat(3) }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 5 }),
        fc.option(fc.integer({ min: 1, max: 6 })),
        async (plan, maxBatch, maxWeight) => {
          const r = recorder();
          // Item i weighs i % 4 + 1.
          const weightOf = (item: number) => (item % 4) + 1;
          const batch = new OrderedBatch(
            r.send,
            maxBatch,
            maxWeight === null ? undefined : { weightOf, max: maxWeight },
          );
          const tickets = plan.map(() => batch.take());
          const order = plan.map((p, i) => ({ ...p, i })).sort((x, y) => x.delay - y.delay || y.i - x.i);
          const answers: Promise<number>[] = [];
          for (const { i, release } of order) {
            if (release) batch.release(tickets[i]!);
            else answers.push(batch.submit(tickets[i]!, i));
            if (i % 3 === 0) await tick();
          }
          await Promise.all(answers);
          const sent = r.batches.flat();
          const submitted = plan.flatMap((p, i) => (p.release ? [] : [i]));
          assert.deepEqual(sent, submitted);
          assert.ok(r.batches.every((b) => b.length >= 1 && b.length <= maxBatch));
          if (maxWeight !== null)
            assert.ok(
              r.batches.every((b) => b.length === 1 || b.reduce((sum, item) => sum + weightOf(item), 0) <= maxWeight),
            );
        },
      ),
      { seed, numRuns: 200 },
    );
  });
});
