import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSql, type Sql } from "../../lib/db/index.ts";
import { Journal } from "../../relayer/index.ts";

/**
 * A relayer journal on embedded PGlite in a temporary directory (openSql creates the directory,
 * so PGlite's "memory://" cannot be used through it), migrated; close() removes it.
 */
export async function openTestJournal(
  label: string,
  embedded: "thread" | "here" = "thread",
  /** Stands between the journal and its database (a test counting or failing statements). */
  wrap: (sql: Sql) => Sql = (sql) => sql,
): Promise<{ journal: Journal; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `${label}-`));
  const sql = await openSql({
    name: "relayer database",
    dataDir: dir,
    schema: "relayer_test",
    timeoutMs: 10_000,
    embedded,
  });
  const journal = new Journal(wrap(sql));
  await journal.migrate();
  return {
    journal,
    close: async () => {
      await sql.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
