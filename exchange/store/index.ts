export type * from "./types.ts";
export { openDb, type OpenDbOptions } from "./db.ts";
export { migrate, MIGRATIONS } from "./migrations.ts";
export { batchStatement, createCommitter, writeUnits, type CommitterOptions, type GroupCommitter } from "./committer.ts";
export { getDeposit, getOrder, getOrderByClientId, getWithdrawalByClientId, listDeposits, listOrderDeals, listOrders, listWithdrawals, loadState, type Page } from "./reads.ts";
export { insertApiKey, insertCommission, insertCurrency, insertUser, upsertPair } from "./reference.ts";
export { DEAL_COLUMNS, dealOf, type DealRecord } from "./rows.ts";
