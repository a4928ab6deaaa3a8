// One database module for every service that keeps its own tables: the exchange's store, the
// relayer's journal and the agents' journals. PostgreSQL (a schema on DATABASE_URL) or embedded
// PGlite 0.5 in a data directory, an old PGlite 0.2 directory copied over first. The indexer's
// config imports data-dir.ts alone (no database loaded at build).
export { dataDirVersion, keptDirName, retireIncompatibleDataDir } from "./data-dir.ts";
export { openPgliteHere } from "./pglite.ts";
export { assertSchemaName, createSchema, type PgDeadlines, schemaPool } from "./postgres.ts";
export { type OpenSqlOptions, openSql, type Sql } from "./sql.ts";
export { asUnavailable, isPoolCheckoutTimeout, isUnavailable, JOURNAL } from "./unavailable.ts";
export { readyPgliteDir, type UpgradeDb, upgradePglite16 } from "./upgrade.ts";
