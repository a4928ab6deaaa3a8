export { Exchange, type Committer, type ExchangeOptions, type KeyVault, type OrderResult } from "./exchange.ts";
export { ReferenceData, type Currency, type Pair } from "./reference-data.ts";
export { BOOK_REJECTIONS, type PlaceOrderInput } from "./order-rows.ts";
export { monotonicMicros, type MicrosClock } from "./clock.ts";
