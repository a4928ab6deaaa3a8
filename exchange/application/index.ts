export { Exchange, type ExchangeOptions, type KeyVault, type OrderResult } from "./exchange.ts";
export {
  DatabaseUnavailableError,
  type Committer,
  type DealRange,
  type ExchangeStore,
  type OrderQuery,
  type WalletFlows,
} from "./ports.ts";
export type * from "./records.ts";
export { ReferenceData, type Currency, type Pair } from "./reference-data.ts";
export { bookRejection, type PlaceOrderInput } from "./order-rows.ts";
export { DOMAIN_ERROR_CODES, DomainError, type DomainErrorCode } from "../core/result.ts";
export { monotonicMicros, type MicrosClock } from "./clock.ts";
