// The application layer's public surface: the exchange facade, its roles' types, the store port
// the composition root implements, and the records and rejections adapters see.
export { Exchange, type ExchangeOptions } from "./exchange.ts";
export type { KeyVault } from "./accounts.ts";
export { DEFAULT_WEB_SESSIONS, sessionTokenHash, type WebSessions } from "./web-sessions.ts";
export type { OrderResult } from "./orders.ts";
export {
  DAILY_WINDOW_MS,
  type DepositArgs,
  type SendingSwitch,
  type WithdrawArgs,
  type WithdrawalGate,
} from "./wallet.ts";
export type { FeeHoldArgs } from "./fee-holds.ts";
export { LISTING_TEMPLATE, type ListingOutcome, type ListingRefusal, type TokenToList } from "./listings.ts";
export type { CurrencyReconciliation } from "./recovery.ts";
export type { Market } from "./sequencer.ts";
export { CommittedView } from "./committed-view.ts";
export { ReferenceData, type Currency, type Pair } from "./reference-data.ts";
export { bookRejection, type PlaceOrderInput } from "./order-rows.ts";
export { DOMAIN_ERROR_CODES, DomainError, type DomainErrorCode } from "../core/result.ts";
export { monotonicMicros, type MicrosClock } from "./clock.ts";
export type {
  Committer,
  DealRange,
  ExchangeStore,
  OrderQuery,
  WalletFlows,
} from "./ports.ts";
export type * from "./records.ts";
