export {
  ceilDiv,
  floorDiv,
  formatUnits,
  MAX_STORED_UNITS,
  parseUnits,
  pow10,
  type DecimalError,
  type Rounding,
} from "./decimal.ts";
export { applyRateRoundingUp, parseRate, ZERO_RATE, type Rate } from "./rate.ts";
export {
  baseUnitsOfLots,
  definePair,
  formatAmount,
  formatCurrencyUnits,
  formatPrice,
  parseAmount,
  parseCurrencyUnits,
  parsePrice,
  quoteUnitsOf,
  tickLotsOfQuoteUnits,
  type ConversionError,
  type CurrencySpec,
  type PairSettings,
  type PairSpec,
} from "./pair.ts";
export { decimalJson, decimalJsonOrNull, JsonNumber, parseJsonExact } from "./json.ts";
