/** The exchange's HTTP surface for code outside exchange/: the app factory (its OpenAPI document is read in-process by scripts/gen-api.ts). */
export { createExchangeApp, type ExchangeAppOptions } from "./app.ts";
