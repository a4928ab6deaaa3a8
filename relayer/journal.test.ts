import { UnavailableError } from "../lib/unavailable.ts";
import assert from "node:assert/strict";
import { afterAll, beforeAll, beforeEach, describe, it } from "vitest";
import type { Journal, NewWrite, TxRow, WriteRow } from "./journal.ts";
import type { Sql } from "../lib/db/index.ts";
import { openTestJournal } from "../support/relayer/journal.ts";

const write = (id: string, overrides: Partial<NewWrite> = {}): NewWrite => ({
  id,
  userId: "u-1",
  kind: "spawn",
  idempotencyKey: null,
  requestHash: `hash-${id}`,
  feeHeld: false,
  createdAt: 1_700_000_000_000,
  ...overrides,
});
const tx = (hash: string, writeId: string, nonce: number, sentAt = 1): TxRow => ({
  hash: hash as `0x${string}`,
  writeId,
  nonce,
  raw: `0x${hash.slice(2)}ff` as `0x${string}`,
  sentAt,
});

// Embedded PGlite on a thread of its own, and on the caller's thread (as the writes' thread opens
// it). One journal per mode (support/relayer/journal.ts); every test starts from an empty one.
describe.each(["thread", "here"] as const)("Journal (PGlite %s)", (embedded) => {
  let journal: Journal;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ journal, close } = await openTestJournal(`journal-test-${embedded}`, embedded));
  });
  afterAll(() => close?.());
  beforeEach(() => journal.clear());

  it("migrates again over an existing schema without losing rows", async () => {
    await journal.insertWrite(write("w-1"));
    await journal.migrate();
    assert.equal((await journal.byId("w-1"))?.id, "w-1");
  });

  it("inserts a new write as open and returns null; reads it back by id and key", async () => {
    assert.equal(await journal.insertWrite(write("w-1", { idempotencyKey: "k-1", feeHeld: true, kind: "vote" })), null);
    const expected: WriteRow = {
      id: "w-1",
      userId: "u-1",
      kind: "vote",
      idempotencyKey: "k-1",
      requestHash: "hash-w-1",
      feeHeld: true,
      state: "open",
      answerStatus: null,
      answerBody: null,
      createdAt: 1_700_000_000_000,
    };
    assert.deepEqual(await journal.byId("w-1"), expected);
    assert.deepEqual(await journal.byKey("u-1", "k-1"), expected);
    assert.equal(await journal.byKey("u-2", "k-1"), undefined, "keys are per user");
    assert.equal(await journal.byId("nope"), undefined);
  });

  it("returns the existing row, untouched, for an Idempotency-Key the user already used", async () => {
    await journal.insertWrite(write("w-1", { idempotencyKey: "k-1" }));
    const existing = await journal.insertWrite(write("w-2", { idempotencyKey: "k-1", requestHash: "other" }));
    assert.equal(existing?.id, "w-1");
    assert.equal(existing?.requestHash, "hash-w-1");
    assert.equal(await journal.byId("w-2"), undefined, "the second write was not inserted");
    assert.equal(
      await journal.insertWrite(write("w-3", { idempotencyKey: "k-1", userId: "u-2" })),
      null,
      "another user's same key is another write",
    );
  });

  it("never conflicts writes without a key", async () => {
    for (const id of ["w-1", "w-2", "w-3"]) assert.equal(await journal.insertWrite(write(id)), null);
    assert.deepEqual(
      (await journal.openWrites()).map((w) => w.id),
      ["w-1", "w-2", "w-3"],
    );
  });

  it("finishes a write with its answer, which a retry with the key reads back", async () => {
    await journal.insertWrite(write("w-1", { idempotencyKey: "k-1" }));
    await journal.finish("w-1", 201, '{"ok":true}');
    const row = await journal.insertWrite(write("w-9", { idempotencyKey: "k-1" }));
    assert.equal(row?.state, "done");
    assert.equal(row?.answerStatus, 201);
    assert.equal(row?.answerBody, '{"ok":true}');
  });

  it("lists only open writes, oldest first", async () => {
    await journal.insertWrite(write("late", { createdAt: 3 }));
    await journal.insertWrite(write("early", { createdAt: 1 }));
    await journal.insertWrite(write("done", { createdAt: 2 }));
    await journal.finish("done", 200, "{}");
    assert.deepEqual(
      (await journal.openWrites()).map((w) => w.id),
      ["early", "late"],
    );
  });

  it("forgets a write with its transactions, so its key runs afresh", async () => {
    await journal.insertWrite(write("w-1", { idempotencyKey: "k-1" }));
    await journal.insertWrite(write("w-2"));
    await journal.addTx(tx("0x01", "w-1", 0));
    await journal.addTx(tx("0x02", "w-2", 1));
    await journal.forget("w-1");
    assert.equal(await journal.byId("w-1"), undefined);
    assert.deepEqual(await journal.txsOf("w-1"), [], "its transactions went with it");
    assert.equal((await journal.txsOf("w-2")).length, 1, "another write's transactions stay");
    assert.equal(await journal.insertWrite(write("w-3", { idempotencyKey: "k-1" })), null);
  });

  it("adds transactions once per hash and lists them in the order sent, nonces as numbers", async () => {
    await journal.insertWrite(write("w-1"));
    await journal.addTx(tx("0xbb", "w-1", 7, 20));
    await journal.addTx(tx("0xaa", "w-1", 7, 10));
    await journal.addTx({ ...tx("0xaa", "w-1", 8, 30), raw: "0xdifferent" });
    assert.deepEqual(await journal.txsOf("w-1"), [tx("0xaa", "w-1", 7, 10), tx("0xbb", "w-1", 7, 20)]);
    await journal.dropTx("0xaa");
    assert.deepEqual(await journal.txsOf("w-1"), [tx("0xbb", "w-1", 7, 20)]);
  });

  it("refuses a transaction of an unknown write", async () => {
    await assert.rejects(journal.addTx(tx("0x01", "missing", 0)));
  });

  it("journals a new write with its transaction in one call, and keeps a write already there", async () => {
    await journal.addTx(tx("0x01", "w-1", 4), write("w-1", { kind: "agent_record", userId: "scout-1" }));
    assert.deepEqual(await journal.byId("w-1"), {
      ...write("w-1", { kind: "agent_record", userId: "scout-1" }),
      state: "open",
      answerStatus: null,
      answerBody: null,
    });
    assert.deepEqual(await journal.txsOf("w-1"), [tx("0x01", "w-1", 4)]);
    // A second transaction of the same write (a retry with the next nonce) leaves the write as it is.
    await journal.finish("w-1", 200, "{}");
    await journal.addTx(tx("0x02", "w-1", 5, 2), write("w-1", { userId: "someone else" }));
    assert.equal((await journal.byId("w-1"))?.state, "done");
    assert.equal((await journal.byId("w-1"))?.userId, "scout-1");
    assert.equal((await journal.txsOf("w-1")).length, 2);
    await assert.rejects(journal.addTx(tx("0x03", "w-2", 6), write("w-other")), /journalled with write w-other/);
  });

  it("journals the system's own writes with no user, alone or with their transaction", async () => {
    assert.equal(await journal.insertWrite(write("s-1", { userId: null, kind: "sweep" })), null);
    await journal.addTx(tx("0x01", "s-2", 7), write("s-2", { userId: null, kind: "sweep" }));
    assert.equal((await journal.byId("s-1"))?.userId, null);
    assert.equal((await journal.byId("s-2"))?.userId, null);
    assert.deepEqual(
      (await journal.openWrites("sweep")).map((w) => [w.id, w.userId]),
      [
        ["s-1", null],
        ["s-2", null],
      ],
    );
  });

  it("knows the highest nonce ever signed, -1 when none", async () => {
    assert.equal(await journal.maxNonce(), -1);
    await journal.insertWrite(write("w-1"));
    await journal.insertWrite(write("w-2"));
    await journal.addTx(tx("0x01", "w-1", 3));
    await journal.addTx(tx("0x02", "w-2", 12));
    await journal.addTx(tx("0x03", "w-1", 5));
    assert.equal(await journal.maxNonce(), 12);
    await journal.dropTx("0x02");
    assert.equal(await journal.maxNonce(), 5);
  });

  it("journals fillers apart from any write: found by nonce, counted in the highest nonce, forgotten on their own", async () => {
    await journal.insertWrite(write("w-1"));
    await journal.addTx(tx("0x01", "w-1", 3));
    await journal.addTx(tx("0x02", "w-1", 3, 2));
    const filler = { hash: "0xf1" as const, nonce: 7, raw: "0xf1ff" as const, sentAt: 5 };
    await journal.addFiller(filler);
    await journal.addFiller(filler);
    assert.equal(await journal.maxNonce(), 7, "a filler's nonce counts");
    assert.deepEqual(await journal.fillersAt(7), [filler], "once per hash");
    assert.deepEqual(await journal.fillersAt(3), []);
    assert.deepEqual(
      (await journal.txsAt(3)).map((t) => t.hash),
      ["0x01", "0x02"],
      "every version at a nonce, oldest first",
    );
    assert.deepEqual(await journal.rawsFrom(4), [{ nonce: 7, raw: "0xf1ff", filler: true }]);
    assert.equal((await journal.rawsFrom(0)).length, 3);
    await journal.forget("w-1");
    assert.deepEqual(await journal.fillersAt(7), [filler], "forgetting a write keeps the filler of its nonce");
    await journal.dropFiller(filler.hash);
    assert.equal(await journal.maxNonce(), -1);
    await journal.addFiller(filler);
    await journal.clear();
    assert.deepEqual(await journal.fillersAt(7), [], "clear() empties the fillers too");
  });

  it("keeps nonces beyond 2^31 exact", async () => {
    await journal.insertWrite(write("w-1"));
    await journal.addTx(tx("0x01", "w-1", 2 ** 40 + 1));
    assert.equal(await journal.maxNonce(), 2 ** 40 + 1);
    assert.equal((await journal.txsOf("w-1"))[0].nonce, 2 ** 40 + 1);
  });

  it("binds to a chain: new the first time, same again, changed for another genesis", async () => {
    assert.equal(await journal.bindChain("0xgenesis-a"), "new");
    assert.equal(await journal.bindChain("0xgenesis-a"), "same");
    assert.equal(await journal.bindChain("0xgenesis-b"), "changed");
    assert.equal(await journal.bindChain("0xgenesis-b"), "same", "the new genesis is remembered");
    await journal.clear();
    assert.equal(await journal.bindChain("0xgenesis-b"), "same", "clear() empties the writes, not the binding");
  });

  it("clears every write and transaction", async () => {
    await journal.insertWrite(write("w-1", { idempotencyKey: "k-1" }));
    await journal.addTx(tx("0x01", "w-1", 4));
    await journal.clear();
    assert.deepEqual(await journal.openWrites(), []);
    assert.deepEqual(await journal.txsOf("w-1"), []);
    assert.equal(await journal.maxNonce(), -1);
    assert.equal(await journal.byKey("u-1", "k-1"), undefined);
  });
});

describe("Journal batches", () => {
  let journal: Journal;
  let close: (() => Promise<void>) | undefined;
  /** Statements the journal ran, by their first words; while `failing` is set, those on relayer_tx throw it. */
  const ran: string[] = [];
  let failing: Error | undefined;

  beforeAll(async () => {
    ({ journal, close } = await openTestJournal("journal-batches", "here", (sql: Sql) => ({
      query: async <R>(text: string, params?: readonly unknown[]) => {
        ran.push(text.trim().split(/\s+/).slice(0, 3).join(" "));
        if (failing && text.includes("relayer_tx")) throw failing;
        return sql.query<R>(text, params);
      },
      close: () => sql.close(),
    })));
  });
  afterAll(() => close?.());
  beforeEach(async () => {
    await journal.clear();
    ran.length = 0;
  });

  it("runs what is asked while a statement is out as one statement per kind, each op with its own answer", async () => {
    await journal.insertWrite(write("w-0", { idempotencyKey: "k-0" }));
    ran.length = 0;
    // The first goes at once; the rest wait for it, then share one statement per kind.
    const first = journal.insertWrite(write("w-1"));
    const rest = [
      journal.insertWrite(write("w-2", { idempotencyKey: "k-2" })),
      journal.insertWrite(write("w-3", { idempotencyKey: "k-0" })),
      journal.insertWrite(write("w-4", { idempotencyKey: "k-2" })),
      journal.addTx(tx("0x01", "w-0", 1)),
      journal.finish("w-0", 201, '{"a":1}'),
    ];
    assert.equal(await first, null);
    const [w2, w3, w4] = await Promise.all(rest);
    assert.equal(w2, null);
    assert.equal((w3 as WriteRow).id, "w-0", "a key already used answers its write");
    assert.equal((w4 as WriteRow).id, "w-2", "the same key twice in one batch: the first one wins");
    assert.deepEqual(ran, [
      "insert into relayed_write",
      "insert into relayed_write",
      "insert into relayer_tx",
      "update relayed_write as",
      "select * from",
      "select * from",
    ]);
    assert.equal((await journal.byId("w-0"))?.answerBody, '{"a":1}');
    assert.deepEqual(await journal.txsOf("w-0"), [tx("0x01", "w-0", 1)]);
    assert.deepEqual(
      (await journal.openWrites()).map((w) => w.id),
      ["w-1", "w-2"],
    );
  });

  it("fails only the op that is wrong when a shared statement fails; the database away fails them all", async () => {
    await journal.insertWrite(write("w-1"));
    const blocker = journal.finish("w-1", 200, "{}");
    const adds = [
      journal.addTx(tx("0x01", "w-1", 1)),
      journal.addTx(tx("0x02", "missing", 2)),
      journal.addTx(tx("0x03", "w-1", 3)),
    ];
    await blocker;
    const outcomes = await Promise.allSettled(adds);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ["fulfilled", "rejected", "fulfilled"],
    );
    assert.deepEqual(
      (await journal.txsOf("w-1")).map((t) => t.hash),
      ["0x01", "0x03"],
    );

    // A shared statement that finds the database away fails every op of it; none is retried alone.
    failing = new UnavailableError("journal database", "relayer database: no answer in 10 ms");
    ran.length = 0;
    const blocker2 = journal.finish("w-1", 200, "{}");
    const failed = [journal.addTx(tx("0x06", "w-1", 6)), journal.addTx(tx("0x07", "w-1", 7))];
    await blocker2;
    const all = await Promise.allSettled(failed);
    failing = undefined;
    assert.deepEqual(
      all.map((o) => (o.status === "rejected" ? (o.reason as Error).name : "ok")),
      ["UnavailableError", "UnavailableError"],
      "not retried op by op: the database is away",
    );
    assert.deepEqual(ran, ["update relayed_write as", "insert into relayer_tx"]);
    assert.deepEqual(
      (await journal.txsOf("w-1")).map((t) => t.hash),
      ["0x01", "0x03"],
    );
  });
});

describe("Journal migration of user_id", () => {
  let journal: Journal;
  let close: (() => Promise<void>) | undefined;
  let sql: Sql;
  const ran: string[] = [];

  beforeAll(async () => {
    ({ journal, close } = await openTestJournal("journal-user-id", "here", (inner: Sql) => {
      sql = inner;
      return {
        query: async <R>(text: string, params?: readonly unknown[]) => {
          ran.push(text);
          return inner.query<R>(text, params);
        },
        close: () => inner.close(),
      };
    }));
  });
  afterAll(() => close?.());

  it("lets a journal made with user_id not null take writes with no user, altering it once", async () => {
    await sql.query("alter table relayed_write alter column user_id set not null");
    await assert.rejects(journal.insertWrite(write("s-1", { userId: null, kind: "sweep" })));
    await journal.insertWrite(write("w-1"));
    ran.length = 0;
    await journal.migrate();
    assert.equal(ran.filter((text) => text.startsWith("alter table")).length, 1);
    assert.equal(await journal.insertWrite(write("s-1", { userId: null, kind: "sweep" })), null);
    assert.equal((await journal.byId("s-1"))?.userId, null);
    assert.equal((await journal.byId("w-1"))?.userId, "u-1", "rows already there are kept");
    ran.length = 0;
    await journal.migrate();
    assert.deepEqual(
      ran.filter((text) => text.startsWith("alter table")),
      [],
      "an altered journal is not altered again",
    );
  });
});
