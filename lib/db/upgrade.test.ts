import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGlite as PGlite16 } from "pglite-0.2";
import { afterAll, describe, it } from "vitest";
import { type UpgradeDb, upgradePglite16 } from "./upgrade.ts";

// The copy itself, on a table larger than one batch (5,000 rows) with numeric, bytea and text, and
// on sequences in each state; the owners' own tests (the relayer's journal, the exchange's store)
// check their data.

const SCHEMA = "s";
const ROWS = 12_345;
const root = await mkdtemp(join(tmpdir(), "lib-pglite-upgrade-"));
afterAll(() => rm(root, { recursive: true, force: true }));

const prepare = async (db: UpgradeDb) => {
  await db.exec(`
    create table if not exists big (id bigserial primary key, n numeric not null, b bytea, t text);
    create sequence if not exists never_used;
    create sequence if not exists set_not_called;`);
};

const fingerprint = async (db: PGlite | PGlite16) => {
  const [row] = (
    await db.query<Record<string, string>>(
      `select count(*)::text as count, sum(n)::text as sum, md5(string_agg(id || ':' || n || ':' || coalesce(encode(b, 'hex'), '-') || ':' || coalesce(t, '-'), ',' order by id)) as digest from "${SCHEMA}".big`,
    )
  ).rows;
  return row;
};

describe("upgradePglite16", () => {
  it("copies a table larger than a batch exactly, and every sequence in its state", async () => {
    const dir = join(root, "db");
    const old = new PGlite16(dir);
    await old.exec(`create schema "${SCHEMA}"; set search_path to "${SCHEMA}"`);
    await prepare(old as unknown as UpgradeDb);
    await old.exec(`
      insert into big (n, b, t)
        select g * 1000000000000000000::numeric + 0.000000000000000001, decode(md5(g::text), 'hex'),
               case when g % 7 = 0 then null else 'row ' || g end
        from generate_series(1, ${ROWS}) g;
      select setval('set_not_called', 41, false);`);
    const before = await fingerprint(old);
    await old.close();

    assert.equal(await upgradePglite16(dir, SCHEMA, prepare), true);
    assert.deepEqual((await readdir(root)).sort(), ["db", "db.pg16"]);
    const db = new PGlite(dir);
    try {
      assert.deepEqual(await fingerprint(db), before);
      assert.equal((await fingerprint(db))!.count, String(ROWS));
      const next = async (sequence: string) =>
        (await db.query<{ n: string }>(`select nextval('"${SCHEMA}".${sequence}')::text as n`)).rows[0]!.n;
      assert.equal(await next("big_id_seq"), String(ROWS + 1));
      assert.equal(await next("never_used"), "1");
      assert.equal(await next("set_not_called"), "41");
    } finally {
      await db.close();
    }
    assert.equal(await upgradePglite16(dir, SCHEMA, prepare), false);
  });
});
