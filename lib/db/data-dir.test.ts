import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite as PGlite16 } from "pglite-0.2";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, it } from "vitest";
import { retireIncompatibleDataDir } from "./data-dir.ts";

const root = mkdtempSync(join(tmpdir(), "ponder-data-dir-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function writeDir(dir: string, version: 16 | 18) {
  const db = version === 16 ? new PGlite16(dir) : new PGlite(dir);
  await db.exec("create table t (n int); insert into t values (7)");
  await db.close();
}

describe("retireIncompatibleDataDir", () => {
  it("moves a PostgreSQL 16 directory aside, whole, and the next one beside it", async () => {
    const dir = join(root, "old");
    await writeDir(dir, 16);
    assert.equal(retireIncompatibleDataDir(dir), `${dir}.pg16`);
    assert.equal(existsSync(dir), false);
    assert.equal(readFileSync(join(`${dir}.pg16`, "PG_VERSION"), "utf8").trim(), "16");

    await writeDir(dir, 16);
    assert.equal(retireIncompatibleDataDir(dir), `${dir}.pg16.2`);
    const kept = new PGlite16(`${dir}.pg16`);
    assert.deepEqual((await kept.query("select n from t")).rows, [{ n: 7 }]);
    await kept.close();
  });

  it("leaves a PostgreSQL 18 directory, and a missing one, alone", async () => {
    const dir = join(root, "current");
    await writeDir(dir, 18);
    assert.equal(retireIncompatibleDataDir(dir), undefined);
    const db = new PGlite(dir);
    assert.deepEqual((await db.query("select n from t")).rows, [{ n: 7 }]);
    await db.close();
    assert.equal(retireIncompatibleDataDir(join(root, "none")), undefined);
  });
});
