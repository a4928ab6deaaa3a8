import assert from "node:assert/strict";
import { cp, mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite as PGlite16 } from "pglite-0.2";
import { afterAll, afterEach, beforeAll, beforeEach, describe, it } from "vitest";
import { IntentLog } from "../agents/runtime/intents.ts";
import { Journal } from "./journal.ts";
import { dataDirVersion } from "../lib/db/index.ts";
import { openSql, type Sql } from "../lib/db/index.ts";

// A journal written by PGlite 0.2 (PostgreSQL 16) before the move to PGlite 0.5: its open write,
// fee hold, signed transaction, intents and ticks must all be there after the upgrade.

const SCHEMA = "upgrade_test";
let root: string;
let dir: string;
/** One legacy journal, written once (PGlite 0.2 takes seconds to start) and copied for each test. */
let template: string;

beforeAll(async () => {
  template = await mkdtemp(join(tmpdir(), "pglite-upgrade-template-"));
  await writeLegacyJournal(join(template, "journal"));
});
afterAll(() => rm(template, { recursive: true, force: true }));
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "pglite-upgrade-"));
  dir = join(root, "journal");
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** This test's copy of the legacy journal, at `dir`. */
const legacyJournal = () => cp(join(template, "journal"), dir, { recursive: true });

const migrate = async (sql: Sql) => {
  await new Journal(sql).migrate();
  await new IntentLog(sql).migrate();
};

/** Writes a journal the way the previous version did: PGlite 0.2, the same tables and statements. */
async function writeLegacyJournal(path: string): Promise<void> {
  const db = new PGlite16(path);
  try {
    await db.exec(`create schema "${SCHEMA}"; set search_path to "${SCHEMA}"`);
    const sql: Sql = {
      query: async <R>(text: string, params: readonly unknown[] = []) =>
        (await db.query<R>(text, params as unknown[])).rows,
      close: async () => {},
    };
    await migrate(sql);
    const journal = new Journal(sql);
    await journal.bindChain("0xgenesis");
    const spawn = {
      id: "w-spawn",
      userId: "u-1",
      kind: "spawn" as const,
      idempotencyKey: "key-1",
      requestHash: "h-1",
      feeHeld: true,
      createdAt: 1_700_000_000_000,
    };
    await journal.insertWrite(spawn);
    await journal.addTx({ hash: "0xaa", writeId: "w-spawn", nonce: 41, raw: "0xaaff", sentAt: 1_700_000_000_500 });
    await journal.insertWrite({ ...spawn, id: "w-done", idempotencyKey: "key-2", feeHeld: false, kind: "vote" });
    await journal.finish("w-done", 201, '{"voteId":"7"}');
    const intents = new IntentLog(sql);
    await intents.nextTick("queen");
    await intents.nextTick("queen");
    await intents.add({ id: "queen:2:0", agent: "queen", tick: 2, spec: '{"kind":"record"}', state: "open" });
  } finally {
    await db.close();
  }
}

/** `nextTick`: the queen's next tick (each call takes one). */
async function assertCarriedOver(sql: Sql, nextTick = 3): Promise<void> {
  const journal = new Journal(sql);
  assert.equal(await journal.bindChain("0xgenesis"), "same");
  const open = await journal.openWrites();
  assert.deepEqual(
    open.map((w) => [w.id, w.kind, w.feeHeld, w.idempotencyKey, w.createdAt]),
    [["w-spawn", "spawn", true, "key-1", 1_700_000_000_000]],
  );
  assert.deepEqual(await journal.txsOf("w-spawn"), [
    { hash: "0xaa", writeId: "w-spawn", nonce: 41, raw: "0xaaff", sentAt: 1_700_000_000_500 },
  ]);
  assert.equal(await journal.maxNonce(), 41);
  const done = await journal.byKey("u-1", "key-2");
  assert.deepEqual([done?.state, done?.answerStatus, done?.answerBody], ["done", 201, '{"voteId":"7"}']);
  const intents = new IntentLog(sql);
  assert.deepEqual(
    (await intents.pending("queen", "open")).map((i) => i.id),
    ["queen:2:0"],
  );
  assert.equal(await intents.nextTick("queen"), nextTick);
}

/** Every table of the schema in a PostgreSQL 16 directory, with its columns and rows. */
async function snapshot(path: string) {
  const db = new PGlite16(path);
  try {
    const { rows: columns } = await db.query<{ table: string; column: string }>(
      `select table_name as "table", column_name as "column" from information_schema.columns where table_schema = $1 order by 1, 2`,
      [SCHEMA],
    );
    const rows: Record<string, unknown> = {};
    for (const table of new Set(columns.map((c) => c.table)))
      rows[table] = (await db.query(`select * from "${SCHEMA}"."${table}" order by 1`)).rows;
    return { columns, rows };
  } finally {
    await db.close();
  }
}

describe("upgrading an embedded journal of PGlite 0.2", () => {
  it("copies every row into a PostgreSQL 18 journal and keeps the old directory beside it", async () => {
    await legacyJournal();
    assert.equal(await dataDirVersion(dir), "16");
    const sql = await openSql({ name: "relayer database", dataDir: dir, schema: SCHEMA, timeoutMs: 10_000, migrate });
    try {
      await assertCarriedOver(sql);
    } finally {
      await sql.close();
    }
    assert.equal(await dataDirVersion(dir), "18");
    assert.equal(await dataDirVersion(`${dir}.pg16`), "16");
    // Opened again, it is simply the new journal.
    const again = await openSql({ name: "relayer database", dataDir: dir, schema: SCHEMA, timeoutMs: 10_000, migrate });
    try {
      await assertCarriedOver(again, 4);
    } finally {
      await again.close();
    }
  });

  it("recovers from a crash in the renames, with only the old directory, moved aside", async () => {
    await legacyJournal();
    await rename(dir, `${dir}.pg16.moving`);
    const sql = await openSql({ name: "relayer database", dataDir: dir, schema: SCHEMA, timeoutMs: 10_000, migrate });
    try {
      await assertCarriedOver(sql);
    } finally {
      await sql.close();
    }
    assert.deepEqual((await readdir(root)).sort(), ["journal", "journal.pg16"]);
  });

  it("keeps the old directory as the previous release left it, and never reads it again", async () => {
    await legacyJournal();
    const before = await snapshot(dir);
    const sql = await openSql({ name: "relayer database", dataDir: dir, schema: SCHEMA, timeoutMs: 10_000, migrate });
    await sql.close();
    assert.deepEqual(await snapshot(`${dir}.pg16`), before);
    // Deleted by the operator, the journal starts empty: the kept directory does not come back.
    await rm(dir, { recursive: true });
    const fresh = await openSql({ name: "relayer database", dataDir: dir, schema: SCHEMA, timeoutMs: 10_000, migrate });
    try {
      assert.deepEqual(await fresh.query(`select id from relayed_write`), []);
    } finally {
      await fresh.close();
    }
    assert.deepEqual((await readdir(root)).sort(), ["journal", "journal.pg16"]);
  });

  it("refuses an old journal when no migrate step is given, rather than starting an empty one", async () => {
    await legacyJournal();
    await assert.rejects(
      openSql({ name: "relayer database", dataDir: dir, schema: SCHEMA, timeoutMs: 10_000 }),
      /PostgreSQL 16/,
    );
    assert.equal(await dataDirVersion(dir), "16");
  });
});
