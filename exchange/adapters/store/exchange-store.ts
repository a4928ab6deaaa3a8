import { UnavailableError } from "../../../lib/unavailable.ts";
import type { ExchangeStore } from "../../application/ports.ts";
import { readCandles } from "./candles.ts";
import { dealsPage, latestDeals, recentDeals } from "./deal-queries.ts";
import {
  bindCurrencyContract,
  insertApiKey,
  insertListing,
  insertUser,
  insertWebSession,
  revokeApiKey,
  revokeWebSession,
  touchApiKeys,
} from "./inserts.ts";
import {
  getDeposit,
  getFeeHold,
  getOrder,
  getOrderByClientId,
  getWithdrawal,
  getWithdrawals,
  getWithdrawalByClientId,
  listWithdrawalsByStatus,
  withdrawnSince,
  listDeposits,
  listOrderDeals,
  listOrders,
  listWithdrawals,
  loadState,
  walletFlows,
} from "./reads.ts";
import type { Db } from "./types.ts";

/** The application's store port (application/ports.ts) over one database. */
export function exchangeStore(db: Db): ExchangeStore {
  return {
    loadState: () => loadState(db),
    fence: () => db.fence(),
    insertUser: (row) => insertUser(db, row),
    insertListing: (rows) => insertListing(db, rows),
    bindCurrencyContract: (code, contractAddress) => bindCurrencyContract(db, code, contractAddress),
    insertApiKey: (row) => insertApiKey(db, row),
    revokeApiKey: (publicKey, atMs) => revokeApiKey(db, publicKey, atMs),
    touchApiKeys: (uses) => touchApiKeys(db, uses),
    insertWebSession: (row) => insertWebSession(db, row),
    revokeWebSession: (tokenHash, atMs) => revokeWebSession(db, tokenHash, atMs),
    getOrder: (orderId) => getOrder(db, orderId),
    getOrderByClientId: (userId, clientOrderId) => getOrderByClientId(db, userId, clientOrderId),
    listOrders: (userId, query) => listOrders(db, userId, query),
    listOrderDeals: (orderId) => listOrderDeals(db, orderId),
    getDeposit: (depositId) => getDeposit(db, depositId),
    getWithdrawalByClientId: (userId, clientWithdrawalId) => getWithdrawalByClientId(db, userId, clientWithdrawalId),
    getFeeHold: (holdId) => getFeeHold(db, holdId),
    getWithdrawal: (id) => getWithdrawal(db, id),
    getWithdrawals: (ids) => getWithdrawals(db, ids),
    listWithdrawalsByStatus: (statuses, limit) => listWithdrawalsByStatus(db, statuses, limit),
    withdrawnSince: (userId, currency, sinceMs) => withdrawnSince(db, userId, currency, sinceMs),
    listDeposits: (userId, page, pageSize) => listDeposits(db, userId, page, pageSize),
    listWithdrawals: (userId, page, pageSize) => listWithdrawals(db, userId, page, pageSize),
    walletFlows: () => walletFlows(db),
    readCandles: (pairCode, interval, startMs, endMs) => readCandles(db, pairCode, interval, startMs, endMs),
    recentDeals: (pairCode, sinceUs) => recentDeals(db, pairCode, sinceUs),
    latestDeals: (pairCode, limit) => latestDeals(db, pairCode, limit),
    dealsPage: (pairCode, range) => dealsPage(db, pairCode, range),
    guarded: (up, lost) => exchangeStore(guarded(db, up, lost)),
  };
}

/**
 * `db` refusing every statement at once while `up()` is false, and reporting a lost connection
 * seen by any statement (a read too), so the first sign of an outage stops the writes.
 */
function guarded(db: Db, up: () => boolean, lost: (error: unknown) => void): Db {
  const refuse = () =>
    Promise.reject(
      new UnavailableError("exchange database", "The database is unavailable; retry when /api/ready answers 200"),
    );
  const watch = <T>(result: Promise<T>) =>
    result.catch((error: unknown) => {
      if (error instanceof UnavailableError && error.connectionLost) lost(error);
      throw error;
    });
  return {
    kind: db.kind,
    query: (sql, params, options) => (up() ? watch(db.query(sql, params, options)) : refuse()),
    transaction: (fn) => (up() ? watch(db.transaction(fn)) : refuse()),
    // The committer's own: it reports its failures itself.
    writer: db.writer,
    fence: () => db.fence(),
    close: () => db.close(),
  };
}
