// The relayer's public surface: everything outside relayer/ imports from here (README.md).
export { Journal } from "./journal.ts";
export type { FillerRow, NewWrite, TxRow, WriteKind, WriteRow } from "./journal.ts";
export { type OpenRelayer, openRelayer, type RelayerClients, type RelayerConfig, relayerClients } from "./open.ts";
export {
  type Call,
  Relayer,
  type RelayerOptions,
  TxDroppedError,
  TxPendingError,
} from "./relayer.ts";
export type { Sql } from "../lib/db/index.ts";
