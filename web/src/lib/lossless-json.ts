/**
 * JSON.parse that keeps numbers as their exact source text. The exchange writes prices and
 * amounts as exact JSON numbers; `JSON.parse` would round an 18-digit amount through a double.
 * The reviver's third argument (ES2025 "JSON.parse source text access", in every current
 * browser and Node 21+) gives the digits as sent. Integer fields named in `integerKeys` (ids,
 * times, update ids) stay numbers.
 */

/** `T` with every number turned into a decimal string, except under the keys `K`. */
export type Exact<T, K extends string = never> = T extends number
  ? string
  : T extends readonly (infer U)[]
    ? Exact<U, K>[]
    : T extends object
      ? { [P in keyof T]: P extends K ? T[P] : Exact<T[P], K> }
      : T;

/** Keys whose numbers are integers the app counts with, not money. */
export const INTEGER_KEYS = new Set([
  "U",
  "u",
  "t",
  "T",
  "E",
  "id",
  "timestamp",
  "lastUpdateId",
  "serverTime",
  "digitsPrice",
  "digitsAmount",
]);

/** Parses `text`, numbers as decimal strings except under `integerKeys`. */
export function parseExactJson<T>(text: string, integerKeys: ReadonlySet<string> = INTEGER_KEYS): T {
  return JSON.parse(text, function (this: unknown, key: string, value: unknown, context?: { source?: string }) {
    if (typeof value !== "number" || integerKeys.has(key) || context?.source === undefined) return value;
    return context.source;
  } as (key: string, value: unknown) => unknown) as T;
}
