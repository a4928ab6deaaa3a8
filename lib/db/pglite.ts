import { PGlite } from "@electric-sql/pglite";

// Imports PGlite alone (no PGlite 0.2, no upgrade): the embedded database's thread
// (pglite-thread.ts) opens its database with it too.

/** PGlite in `dataDir` (made ready first), on this thread, with `search_path` set to `schema`. */
export async function openPgliteHere(dataDir: string, schema: string): Promise<PGlite> {
  const db = new PGlite(dataDir);
  await db.waitReady;
  await db.exec(`create schema if not exists "${schema}"; set search_path to "${schema}"`);
  return db;
}
