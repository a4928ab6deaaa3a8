export { Journal } from "./journal.ts";
export type { NewWrite, TxRow, WriteKind, WriteRow } from "./journal.ts";
export { type Call, Relayer, type RelayerOptions, RelayerUnavailableError, TxPendingError } from "./relayer.ts";
export { openSql, type Sql, SqlUnavailableError } from "./sql.ts";
