import pg from "pg";
import { onCleanup } from "./processes.ts";

/**
 * With DATABASE_URL, each app gets a database of its own, dropped at the end. A schema each is
 * not enough: Ponder keeps its RPC cache in a shared `ponder_sync` schema, so the second app
 * would read the first one's cache (and any other run's data for the chain id) instead of the chain.
 */
export async function freshDatabase(baseUrl: string, name: string): Promise<string> {
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  onCleanup(() => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
