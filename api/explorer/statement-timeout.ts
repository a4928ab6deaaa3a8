/** The part of a pg Pool this module uses: Ponder's read-only pool. */
export interface PoolLike {
  on(event: "acquire", listener: (client: { query(sql: string): Promise<unknown> }) => void): unknown;
}

/**
 * Sets `statement_timeout` on every connection of Ponder's read-only pool, the one that serves
 * /sql, /graphql and /api (Ponder gives it 30 s and no setting). Done when a connection is
 * handed out, so connections opened before this ran are covered too; pg queues the SET ahead
 * of the borrower's first query on the same connection, so no query runs unbounded.
 */
export function boundStatementTime(pool: PoolLike, timeoutMs: number): void {
  const ms = Math.trunc(timeoutMs);
  if (!(ms > 0)) throw new Error(`statement timeout must be a positive number of ms, got ${timeoutMs}`);
  const bounded = new WeakSet<object>();
  pool.on("acquire", (client) => {
    if (bounded.has(client)) return;
    bounded.add(client);
    client.query(`SET statement_timeout = ${ms}`).catch(() => bounded.delete(client));
  });
}
