// The database handle every store module takes. The records it reads and writes are the
// application's (application/records.ts), re-exported so store modules import one place.

export type * from "../../application/records.ts";

/** One connection (PGlite) or a pool (PostgreSQL), with every statement in the `exchange` schema. */
export interface Db {
  readonly kind: "pglite" | "postgres";
  query<R = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<R[]>;
  /**
   * The group committer's own connection (PostgreSQL: a pool of one beside the readers' pool), so
   * reads can never starve commits. fence() replaces it with the others.
   */
  readonly writer: Queryable;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * After an outage: replaces every pooled connection and waits until no statement sent before
   * can still commit, so what is read next is final. Rejects while the database is away.
   */
  fence(): Promise<void>;
  close(): Promise<void>;
}

export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<R[]>;
}

export interface QueryOptions {
  /** Prepare the statement under this name once per connection (PostgreSQL; PGlite ignores it). */
  readonly name?: string;
}
