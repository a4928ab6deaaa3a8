import type { Db } from "./types.ts";

// The deposit watcher's cursor: the last block it applied on a chain (migration 7). Not money, so
// it is written directly rather than through the group committer; it moves only after every
// credit of the blocks below it committed, so a restart from it never skips a deposit.

export interface ChainCursor {
  readonly blockNumber: number;
  readonly blockHash: string;
}

export async function readChainCursor(db: Db, chainId: number): Promise<ChainCursor | undefined> {
  const [row] = await db.query<{ block_number: string | number; block_hash: string }>(
    `select block_number, block_hash from chain_cursors where chain_id = $1`,
    [chainId],
  );
  return row && { blockNumber: Number(row.block_number), blockHash: row.block_hash };
}

export async function writeChainCursor(db: Db, chainId: number, cursor: ChainCursor, atMs: number): Promise<void> {
  await db.query(
    `insert into chain_cursors (chain_id, block_number, block_hash, updated_at) values ($1, $2, $3, $4)
     on conflict (chain_id) do update set block_number = excluded.block_number, block_hash = excluded.block_hash, updated_at = excluded.updated_at`,
    [chainId, cursor.blockNumber, cursor.blockHash, atMs],
  );
}
