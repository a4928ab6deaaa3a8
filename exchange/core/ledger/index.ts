export type * from "./types.ts";
export {
  applyEntry,
  balanceOf,
  burnedTotal,
  createLedger,
  feeHoldKey,
  feesCollected,
  holdOf,
  recountSupply,
  supplyOf,
} from "./state.ts";
export {
  COMMISSION_TYPES,
  commissionsForLevel,
  feeFor,
  feesOfTrade,
  NO_FEE,
  resolveFeeRule,
  resolvePairFees,
  type CommissionRecord,
  type FeeQuery,
  type FeeRule,
  type PairFees,
  type TradeFees,
} from "./commissions.ts";
export {
  deposit,
  refundWithdrawal,
  withdraw,
  type DepositRequest,
  type WithdrawalRefundRequest,
  type WithdrawalRequest,
} from "./wallet.ts";
export { holdForOrder, releaseHold, requiredHold, settleTrade, type OrderHoldRequest } from "./orders.ts";
export { applyBookEvents } from "./book-events.ts";
export {
  feeHoldStep,
  holdFee,
  releaseFee,
  settleFee,
  type FeeHoldAction,
  type FeeHoldRequest,
  type FeeHoldStatus,
} from "./fee-holds.ts";
