import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPgliteThread, type PgliteThread } from "./pglite-client.ts";

let dir: string;
let db: PgliteThread;
const down = (reason: unknown) => new Error(`down: ${String(reason)}`);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pglite-client-"));
  db = await openPgliteThread({ dataDir: join(dir, "db"), schema: "t", timeoutMs: 10_000, down });
  await db.query("create table items (id int primary key, note text)");
}, 60_000);

afterAll(async () => {
  await db?.close();
  await rm(dir, { recursive: true, force: true });
});

const ids = async () => (await db.query<{ id: number }>("select id from items order by id")).map((r) => r.id);

describe("PGlite on its own thread", () => {
  it("answers statements with their rows, and a statement's error with its SQLSTATE", async () => {
    await db.query("insert into items values ($1, $2)", [1, "one"]);
    expect(await db.query("select id, note from items")).toEqual([{ id: 1, note: "one" }]);
    const error = await db.query("insert into items values (1, 'again')").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "23505" });
  });

  it("commits a transaction that resolves, rolls back one that throws", async () => {
    const answer = await db.transaction(async (query) => {
      await query("insert into items values (2, 'two')");
      return (await query<{ n: number }>("select count(*)::int as n from items"))[0]!.n;
    });
    expect(answer).toBe(2);
    await expect(
      db.transaction(async (query) => {
        await query("insert into items values (3, 'three')");
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await ids()).toEqual([1, 2]);
  });

  it("holds other statements until the transaction ends, as one connection does", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = db.transaction(async (query) => {
      await query("insert into items values (4, 'four')");
      await held;
      await query("delete from items where id = 4");
    });
    // Sent while the transaction is open: it must not see its uncommitted row, nor run before its end.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const outside = ids();
    release();
    await transaction;
    expect(await outside).toEqual([1, 2]);
  });

  it("a failing statement in a transaction fails it, and the connection serves on", async () => {
    await expect(
      db.transaction(async (query) => {
        await query("insert into items values (5, 'five')");
        await query("insert into items values (1, 'duplicate')");
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(await ids()).toEqual([1, 2]);
  });
});
