import { z } from "zod";
import { ADDRESS_PROBLEM, addressText, isHexAddress } from "../address.ts";

export { ADDRESS_PROBLEM, addressText, isHexAddress };

/**
 * The request parameter schemas both APIs share. Each validates, converts query text to a typed
 * value and documents itself (the OpenAPI schema says what a client sends). Messages complete
 * "<parameter>: ...".
 */

export interface IntegerProblems {
  /** Not digits only (a sign, exponent, hex, blanks or more than 16 digits). */
  readonly notInteger: string;
  readonly tooSmall: string;
  readonly tooLarge: string;
}

/**
 * A query or path integer: digits only (no sign, exponent, hex or blanks), then range-checked.
 * `problems` is one message for every failure, or one per failure. Its document overrides the
 * schema's (an integer, not the digit string), so a default must be repeated in `.meta()`.
 */
export function integerParam(min: number, max: number, problems: string | IntegerProblems) {
  const say =
    typeof problems === "string" ? { notInteger: problems, tooSmall: problems, tooLarge: problems } : problems;
  return z
    .string({ error: say.notInteger })
    .regex(/^\d{1,16}$/, { error: say.notInteger })
    .transform(Number)
    .pipe(z.number().int().min(min, { error: say.tooSmall }).max(max, { error: say.tooLarge }))
    .meta({ type: "integer", minimum: min, maximum: max });
}

/** An exact non-negative decimal as text: digits with an optional fraction, no sign or exponent. */
export const DECIMAL_TEXT = /^\d+(\.\d+)?$/;

/**
 * Decimal text for request bodies, at most 100 characters so huge digit strings never reach
 * BigInt; the exact bound of an amount is checked where its currency's decimals are known.
 */
export const decimalTextParam = z
  .string()
  .max(100, "must be at most 100 characters")
  .regex(DECIMAL_TEXT, "must be a plain non-negative decimal such as 12.5 (no exponent)");

/** Any case in, lower case out: the databases spell every address in lower case. */
export const addressParam = z
  .string()
  .refine(isHexAddress, { error: ADDRESS_PROBLEM })
  .transform((value) => value.toLowerCase() as `0x${string}`)
  .meta({ type: "string", pattern: "^0x[0-9a-fA-F]{40}$" });

/**
 * ISO 8601 UTC without offset (SPEC.md's times): 2026-04-29T12:00:00, optional fraction (up to
 * microseconds), optional Z; date-only means midnight. Converted to Unix microseconds.
 */
export const isoUtcParam = z
  .string({ error: "is required" })
  .regex(
    /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?Z?)?$/,
    "must be ISO 8601 UTC without offset, e.g. 2026-04-29T12:00:00",
  )
  .transform((text, ctx) => {
    const [date, time = "00:00:00"] = text.replace(/Z$/, "").split("T");
    const [hms, fraction = ""] = time.split(".");
    const ms = Date.parse(`${date}T${hms.length === 5 ? `${hms}:00` : hms}Z`);
    const [y, m, d] = date.split("-").map(Number);
    const check = new Date(ms);
    if (Number.isNaN(ms) || check.getUTCFullYear() !== y || check.getUTCMonth() + 1 !== m || check.getUTCDate() !== d) {
      ctx.addIssue({ code: "custom", message: `is not a valid date: ${text}` });
      return z.NEVER;
    }
    return ms * 1000 + Number(fraction.padEnd(6, "0"));
  })
  .meta({ format: "date-time", example: "2026-04-29T12:00:00" });

/** The most candles one call answers (the exchange's /api/ohlc and the pools' candles): longer ranges are split. */
export const MAX_CANDLES = 5000;

/** Large enough for any real list, small enough that page x pageSize stays an exact number. */
export const MAX_PAGE = 1_000_000_000;
export const MAX_PAGE_SIZE = 100;

/** The ecosystem API's page query (SPEC.md: page, pageSize). */
export function pageSizeQuery({ defaultSize = 20 } = {}) {
  return z.object({
    page: integerParam(1, MAX_PAGE, `must be an integer from 1 to ${MAX_PAGE}`)
      .default(1)
      .meta({ default: 1, description: "1-based page number; a page past the end has no items" }),
    pageSize: integerParam(1, MAX_PAGE_SIZE, `must be an integer from 1 to ${MAX_PAGE_SIZE}`)
      .default(defaultSize)
      .meta({ default: defaultSize, description: "Items per page" }),
  });
}

/** Messages of the exchange's integers, as its clients have seen them. */
const exchangeInteger = (min: number, max: number): IntegerProblems => ({
  notInteger: "must be an integer",
  tooSmall: `Too small: expected number to be >=${min}`,
  tooLarge: `Too big: expected number to be <=${max}`,
});

/** The exchange's page query (SPEC.md: pageNumber, pageSize); the largest page number is 1 000 000. */
export function pageNumberQuery({ defaultSize = 50, maxSize = MAX_PAGE_SIZE } = {}) {
  return z.object({
    pageNumber: integerParam(1, 1_000_000, exchangeInteger(1, 1_000_000)).default(1).meta({ default: 1 }),
    pageSize: integerParam(1, maxSize, exchangeInteger(1, maxSize)).default(defaultSize).meta({ default: defaultSize }),
  });
}
