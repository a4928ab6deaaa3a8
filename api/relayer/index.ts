export { Journal } from "./journal.ts";
export type { FillerRow, NewWrite, TxRow, WriteKind, WriteRow } from "./journal.ts";
export {
  type Call,
  Relayer,
  type RelayerOptions,
  RelayerUnavailableError,
  TxDroppedError,
  TxPendingError,
} from "./relayer.ts";
export { openSql, type Sql, SqlUnavailableError } from "./sql.ts";
