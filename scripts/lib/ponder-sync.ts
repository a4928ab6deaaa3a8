import pg from "pg";

/**
 * Ponder keeps fetched blocks, logs and receipts in the database-wide `ponder_sync` schema,
 * keyed by chain id and block number, and reuses them across apps and runs. A local node is a
 * new chain under the same id on every start, so before indexing it the rows of its
 * predecessors must go, or Ponder would replay the old chain's events (the embedded database
 * is simply deleted instead).
 */
export async function forgetChainSyncData(databaseUrl: string, chainId: number): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(
      `select table_name from information_schema.columns
        where table_schema = 'ponder_sync' and column_name = 'chain_id'`,
    );
    let deleted = 0;
    for (const { table_name } of rows) {
      const result = await client.query(`delete from ponder_sync."${table_name}" where chain_id = $1`, [chainId]);
      deleted += result.rowCount ?? 0;
    }
    return deleted;
  } finally {
    await client.end();
  }
}
