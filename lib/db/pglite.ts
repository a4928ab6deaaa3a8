import { mkdir } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { dataDirVersion } from "./data-dir.ts";
import { type UpgradeDb, upgradePglite16 } from "./upgrade.ts";

/**
 * Makes `dataDir` ready for PGlite 0.5 (PostgreSQL 18) with the owner's tables in `schema`: a
 * directory of PGlite 0.2 (PostgreSQL 16) from an earlier version is copied into a new one first,
 * every row (upgrade.ts; the old one kept beside it as `<dir>.pg16`). Without `prepare` (the
 * owner's migrations) such a directory is refused rather than copied with no tables to copy into.
 * Returns whether it was upgraded.
 */
export async function readyPgliteDir(
  dataDir: string,
  schema: string,
  prepare: ((db: UpgradeDb) => Promise<void>) | undefined,
): Promise<boolean> {
  let upgraded = false;
  if (prepare) upgraded = await upgradePglite16(dataDir, schema, prepare);
  else if (dataDirVersion(dataDir) === "16")
    throw new Error(
      `${dataDir} holds a database of PGlite 0.2 (PostgreSQL 16): open it with a migrate step to upgrade it`,
    );
  await mkdir(dataDir, { recursive: true });
  return upgraded;
}

/** PGlite in `dataDir` (made ready first), on this thread, with `search_path` set to `schema`. */
export async function openPgliteHere(dataDir: string, schema: string): Promise<PGlite> {
  const db = new PGlite(dataDir);
  await db.waitReady;
  await db.exec(`create schema if not exists "${schema}"; set search_path to "${schema}"`);
  return db;
}
