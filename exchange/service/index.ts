export { Exchange, type Committer, type ExchangeOptions, type KeyVault, type OrderResult } from "./exchange.ts";
export { ReferenceData, type Currency, type Pair } from "./reference.ts";
export { BOOK_REJECTIONS, type PlaceOrderInput } from "./trading.ts";
export { monotonicMicros, type MicrosClock } from "./clock.ts";
