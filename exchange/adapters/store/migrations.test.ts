import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { openDb } from "./db.ts";
import { MIGRATIONS, migrate, migrationChecksum } from "./migrations.ts";
import type { Db } from "./types.ts";

/**
 * The checksums of released migrations. A migration applied to some database is frozen: if this
 * test fails, a released migration's text changed (restore it and add a new migration instead).
 * Append a line when releasing a new migration; never edit one.
 */
const RELEASED = [
  "ca85e5dfdbad7ebf48b428ab23bae5a64c11ddefc5eb8b66146b11c193937ce4",
  "85e027770429c7a1c934c2641bdd2a6c23b0cc3ec39e48dd8b7d20d0dd9602e9",
  "c00af26ea01418d877666b9412ab4f4c46e85a72d345bf458b6a7e82c4662f28",
  "fd1a366c8e339d3d350e8e8f4073ce9da4f93b44d742ee5b62c4fa2093a128b4",
  "b9def924a38d564059361f2db8fbb3554928c3035be5608794fa5f89bca934a8",
  "d1117049dfa6f83b565287bfc9bcfad99fda881a956067aabe789cda0de29ab6",
  "2ce7814a662d3cf352890fd38bab1d7daf86208bccb68416ac505bb5bceedaa2",
];

describe("migrations", () => {
  it("keeps every released migration's text exactly (checksums pinned)", () => {
    assert.ok(MIGRATIONS.length >= RELEASED.length, "a released migration was removed");
    for (const [index, checksum] of RELEASED.entries()) {
      assert.equal(migrationChecksum(MIGRATIONS[index]!), checksum, `migration ${index + 1} changed`);
    }
  });

  describe("on a database", () => {
    let dir: string;
    let db: Db;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "migrations-test-"));
      db = await openDb({ dataDir: dir, schema: "exchange" });
    });
    afterAll(async () => {
      await db?.close();
      await rm(dir, { recursive: true, force: true });
    });
    const recorded = async () =>
      (
        await db.query<{ version: number; checksum: string | null }>(
          `select version, checksum from schema_migrations order by version`,
        )
      ).map((r) => [r.version, r.checksum]);

    it("records each migration's checksum and applies nothing twice", async () => {
      assert.equal(await migrate(db), MIGRATIONS.length);
      assert.equal(await migrate(db), 0);
      assert.deepEqual(
        await recorded(),
        MIGRATIONS.map((m, i) => [i + 1, migrationChecksum(m)]),
      );
    });

    it("fills in the checksums of a database migrated before they were recorded", async () => {
      await db.query(`update schema_migrations set checksum = null`);
      assert.equal(await migrate(db), 0);
      assert.deepEqual(
        await recorded(),
        MIGRATIONS.map((m, i) => [i + 1, migrationChecksum(m)]),
      );
    });

    it("refuses to start when an applied migration's text differs, naming the version", async () => {
      await db.query(`update schema_migrations set checksum = 'edited' where version = 1`);
      await assert.rejects(
        migrate(db),
        /migration 1 was applied with checksum edited .*a released migration was edited/,
      );
      await db.query(`update schema_migrations set checksum = $1 where version = 1`, [
        migrationChecksum(MIGRATIONS[0]!),
      ]);
    });

    it("refuses a database migrated by a newer release", async () => {
      const next = MIGRATIONS.length + 1;
      await db.query(`insert into schema_migrations (version, applied_at, checksum) values ($1, 0, 'x')`, [next]);
      await assert.rejects(migrate(db), new RegExp(`has migration ${next}, which this code does not know`));
      await db.query(`delete from schema_migrations where version = $1`, [next]);
      assert.equal(await migrate(db), 0);
    });
  });
});
