import { PGlite } from "@electric-sql/pglite";
import { is } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import { drizzle } from "drizzle-orm/pglite";
import * as schema from "../../indexer/schema.ts";

/**
 * An in-memory PGlite database with the indexer's tables and indexes, created from
 * indexer/schema.ts itself (so tests follow the schema), for tests and measurements of the API
 * without a chain or Ponder. Test-only: it uses Ponder's own dependencies (PGlite, Drizzle).
 */
export async function createTestDatabase() {
  const client = new PGlite();
  for (const table of Object.values(schema)) {
    if (is(table, PgTable)) await client.exec(ddlOf(table));
  }
  const db = drizzle(client, { schema, casing: "snake_case" });
  return { db, client, close: () => client.close() };
}

export type TestDatabase = Awaited<ReturnType<typeof createTestDatabase>>;

function ddlOf(table: PgTable) {
  const config = getTableConfig(table);
  const quote = (name: string) => `"${name}"`;
  const columns = config.columns.map(
    (c) => `${quote(c.name)} ${c.getSQLType()}${c.notNull ? " NOT NULL" : ""}${c.primary ? " PRIMARY KEY" : ""}`,
  );
  for (const pk of config.primaryKeys) columns.push(`PRIMARY KEY (${pk.columns.map((c) => quote(c.name)).join(", ")})`);
  const statements = [`CREATE TABLE ${quote(config.name)} (${columns.join(", ")});`];
  for (const index of config.indexes) {
    // A column's order (.desc()) matters: the holders list reads an index in the order it is built.
    const names = index.config.columns.map((c) => {
      const column = c as { name: string; indexConfig?: { order?: string } };
      return `${quote(column.name)}${column.indexConfig?.order === "desc" ? " DESC" : ""}`;
    });
    statements.push(`CREATE INDEX ON ${quote(config.name)} (${names.join(", ")});`);
  }
  return statements.join("\n");
}
