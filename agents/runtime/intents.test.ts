import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSql, type Sql } from "../../lib/db/index.ts";
import { Journal } from "../../relayer/index.ts";
import { IntentLog } from "./intents.ts";

let dir: string;
let sql: Sql;
let journal: Journal;
let intents: IntentLog;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "intents-test-"));
  sql = await openSql({ name: "agents database", dataDir: dir, schema: "agents_test", timeoutMs: 10_000 });
  journal = new Journal(sql);
  await journal.migrate();
  intents = new IntentLog(sql);
  await intents.migrate();
});
afterAll(async () => {
  await sql.close();
  await rm(dir, { recursive: true, force: true });
});

const write = (id: string, createdAt: number) =>
  journal.insertWrite({
    id,
    userId: "a",
    kind: "agent_record",
    idempotencyKey: null,
    requestHash: "",
    feeHeld: false,
    createdAt,
  });

describe("IntentLog", () => {
  it("counts ticks across calls and returns a new intent once", async () => {
    expect(await intents.nextTick("a")).toBe(1);
    expect(await intents.nextTick("a")).toBe(2);
    const row = await intents.add({ id: "a:2:0", agent: "a", tick: 2, spec: "{}", state: "open" });
    expect(row).toMatchObject({ id: "a:2:0", state: "open", tick: 2 });
    expect(await intents.add({ id: "a:2:0", agent: "a", tick: 2, spec: "{}", state: "open" })).toBeUndefined();
  });

  it("prunes finished intents before the cut-off with their journal rows, and keeps open ones", async () => {
    await intents.add({ id: "a:3:0", agent: "a", tick: 3, spec: "{}", state: "open" });
    await intents.add({ id: "a:3:1", agent: "a", tick: 3, spec: "{}", state: "open" });
    await write("a:3:0:record", 0);
    await write("a:3:1:record", 0);
    await write("setup:approve:x", 0);
    await intents.settle("a:3:0", "done", "{}");
    const pruned = await intents.prune(Date.now() + 1_000);
    expect(pruned).toBe(1);
    expect(await intents.byId("a:3:0")).toBeUndefined();
    expect(await journal.byId("a:3:0:record")).toBeUndefined();
    expect(await intents.byId("a:3:1")).toMatchObject({ state: "open" });
    expect(await journal.byId("a:3:1:record")).toBeDefined();
    expect(await journal.byId("setup:approve:x")).toBeUndefined();
  });

  it("stores settles that arrive together each with its own state and result", async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `a:4:${i}`);
    for (const id of ids) await intents.add({ id, agent: "a", tick: 4, spec: "{}", state: "open" });
    // Issued at once: the first is stored alone, the rest wait for it and go in one statement.
    await Promise.all(ids.map((id, i) => intents.settle(id, i % 3 === 0 ? "failed" : "done", `{"i":${i}}`)));
    for (const [i, id] of ids.entries())
      expect(await intents.byId(id)).toMatchObject({ state: i % 3 === 0 ? "failed" : "done", result: `{"i":${i}}` });
    expect(await intents.pending("a", "open")).not.toContainEqual(expect.objectContaining({ tick: 4 }));
  });

  it("fails every settle of a statement the database refuses, and stores later ones", async () => {
    await intents.add({ id: "a:5:0", agent: "a", tick: 5, spec: "{}", state: "open" });
    await intents.add({ id: "a:5:1", agent: "a", tick: 5, spec: "{}", state: "open" });
    // A state the column cannot take: the statement holding it fails as a whole.
    const bad = intents.settle("a:5:0", "done", "x".repeat(1)).then(() => intents.settle("a:5:0", null as never, "{}"));
    await expect(bad).rejects.toThrow();
    await intents.settle("a:5:1", "done", "{}");
    expect(await intents.byId("a:5:1")).toMatchObject({ state: "done" });
  });

  it("records intents that arrive together in one go, each once, the first of a repeated id only", async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `a:6:${i}`);
    const rows = await Promise.all([
      ...ids.map((id, i) => intents.add({ id, agent: "a", tick: 6, spec: `{"i":${i}}`, state: "open" })),
      intents.add({ id: "a:6:3", agent: "a", tick: 6, spec: "{}", state: "open" }),
      intents.add({ id: "a:6:b", agent: "a", tick: 6, spec: "{}", state: "batched", batchWindow: 4 }),
    ]);
    for (const [i, id] of ids.entries()) assert.equal(rows[i]?.spec, `{"i":${i}}`, id);
    assert.equal(rows[12], undefined, "the repeated id is not recorded twice");
    assert.equal(rows[13]?.batchWindow, 4);
    assert.equal((await intents.byId("a:6:3"))?.spec, '{"i":3}');
  });
});
