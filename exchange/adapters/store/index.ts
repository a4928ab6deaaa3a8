export type * from "./types.ts";
export { DB_DEFAULTS, openDb, type OpenDbOptions } from "./db.ts";
export { migrate, MIGRATIONS } from "./migrations.ts";
export {
  batchStatement,
  COMMITTER_DEFAULTS,
  createCommitter,
  writeUnits,
  type CommitterOptions,
  type GroupCommitter,
} from "./committer.ts";
export {
  getDeposit,
  getOrder,
  getOrderByClientId,
  getWithdrawalByClientId,
  listDeposits,
  listOrderDeals,
  listOrders,
  listWithdrawals,
  loadState,
} from "./reads.ts";
export { insertApiKey, insertCommission, insertCurrency, insertUser, upsertPair } from "./inserts.ts";
export { DEAL_COLUMNS, dealOf, type DealRecord } from "./rows.ts";
export { readCandles, upsertCandles } from "./candles.ts";
export { dealsPage, latestDeals, recentDeals } from "./deal-queries.ts";
export { exchangeStore } from "./exchange-store.ts";
export { type ChainCursor, readChainCursor, writeChainCursor } from "./chain-cursor.ts";
