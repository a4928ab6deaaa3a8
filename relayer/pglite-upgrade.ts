import { upgradePglite16 } from "../lib/pglite-upgrade.ts";
import type { Sql } from "./sql-types.ts";

export { dataDirVersion } from "../lib/pglite-upgrade.ts";

/**
 * The embedded journal moved from PGlite 0.2 (PostgreSQL 16) to 0.5 (PostgreSQL 18); an old
 * journal is copied into a new one, every row, before its first use (lib/pglite-upgrade.ts).
 * Returns false if there was none.
 */
export function upgradeLegacyJournal(
  dataDir: string,
  schema: string,
  migrate: (sql: Sql) => Promise<void>,
): Promise<boolean> {
  return upgradePglite16(dataDir, schema, (db) =>
    migrate({
      query: async <R>(text: string, params: readonly unknown[] = []) =>
        (await db.query<R>(text, params as unknown[])).rows,
      close: async () => {},
    }),
  );
}
