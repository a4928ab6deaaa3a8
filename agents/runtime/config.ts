/**
 * What every agent account's sending side is configured with: where its journal lives and how its
 * relayer waits. Shared by the runtime's config and each account's operator, so the two cannot drift.
 */
export interface SendingConfig {
  /** PostgreSQL for every account's journal (one schema each); PGlite under `dataDir` without it. */
  readonly databaseUrl?: string;
  readonly dataDir: string;
  readonly schema: string;
  readonly dbTimeoutMs: number;
  readonly receiptTimeoutMs: number;
  readonly pollMs: number;
}
