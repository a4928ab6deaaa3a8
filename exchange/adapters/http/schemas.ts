import { z } from "zod";
import { decimalTextParam, integerParam, pageNumberQuery } from "../../../lib/http/index.ts";
import { JsonNumber } from "../../core/money/json.ts";

// Request schemas of the trading and wallet API. Decimals arrive as JSON numbers (kept as their
// source text by parseJsonExact) or strings, and stay text until the pair's precision parses them.

export const decimalText = z
  .union([z.string(), z.instanceof(JsonNumber)], { error: "must be a decimal number" })
  .transform((value) => (typeof value === "string" ? value : value.text))
  // The exact bound of each amount (what its numeric(78, 0) column holds) is checked where its
  // currency's decimals are known.
  .pipe(decimalTextParam)
  // Documented as a number, what SPEC.md's clients send; the generator cannot describe the union.
  .meta({ type: "number", description: "Decimal: a JSON number (kept exact) or a decimal string" });

export const pairCode = z
  .string({ error: "is required" })
  .regex(/^[A-Z0-9]{1,16}_[A-Z0-9]{1,16}$/, "must be a pair code such as ALPHA_USDT");

export const placeOrderBody = z.strictObject({
  isBid: z.boolean({ error: "must be true or false" }),
  currencyPairCode: pairCode,
  amount: decimalText,
  price: decimalText.optional(),
  type: z.enum(["limit", "market"]).default("limit"),
  timeInForce: z.enum(["GTC", "IOC", "FOK"]).optional(),
  postOnly: z.boolean({ error: "must be true or false" }).optional(),
  selfTradePrevention: z.enum(["cancel_resting", "cancel_taker"]).optional(),
  quoteAmount: decimalText.optional(),
  clientOrderId: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/, "must be 1 to 64 characters of A-Z a-z 0-9 _ . : -")
    .optional(),
});

/** SPEC.md's page query of the signed lists: pageNumber, pageSize (default 50). */
export const pageQuery = pageNumberQuery();

export const listOrdersQuery = z.object({
  currencyPairCode: pairCode.optional(),
  status: z.enum(["open", "history", "all"], { error: "must be one of open, history, all" }).default("all"),
  ...pageQuery.shape,
});

/** The schema of a page of a signed list: the items and where they stand in the whole. */
export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    pageNumber: z.number().int(),
    pageSize: z.number().int(),
    totalItems: z.number().int(),
  });

export const cancelAllQuery = z.object({ currencyPairCode: pairCode.optional() });

export const orderIdParam = z.object({ id: z.uuid("must be an order id (UUID)") });

/**
 * Free text that is stored: printable ASCII only. PostgreSQL cannot store NUL or a lone UTF-16
 * surrogate, and a commit that fails stops the exchange, so such text must never get that far.
 */
export const storedText = (max: number) =>
  z
    .string()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`)
    .regex(/^[\x20-\x7e]+$/, "must be printable ASCII");

export const withdrawalBody = z.strictObject({
  currencyCode: z.string().regex(/^[A-Z0-9]{1,16}$/, "must be a currency code"),
  amount: decimalText,
  address: z.string().regex(/^[A-Za-z0-9:._-]{1,128}$/, "must be a chain address: 1 to 128 of A-Z a-z 0-9 : . _ -"),
  clientWithdrawalId: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/, "must be 1 to 64 characters of A-Z a-z 0-9 _ . : -")
    .optional(),
});

/** An integer in a body parsed by parseJsonExact. */
export const jsonInteger = (min: number, max: number) =>
  z
    .instanceof(JsonNumber, { error: "must be an integer" })
    .transform((value) => Number(value.text))
    .pipe(z.number().int("must be an integer").min(min).max(max))
    .meta({ type: "integer", minimum: min, maximum: max });

/** `?currencyPairCode=` of the public market-data routes. */
export const pairQuery = z.object({
  currencyPairCode: pairCode.meta({ description: "Pair code <base>_<target>", example: "ALPHA_USDT" }),
});

/** A positive integer query parameter up to `max`, `fallback` when absent. */
export const positiveInt = (max: number, fallback: number, name: string) =>
  integerParam(1, max, {
    notInteger: "must be an integer",
    tooSmall: "must be at least 1",
    tooLarge: `must be at most ${max}`,
  })
    .default(fallback)
    .meta({ default: fallback, description: name });

export const unknownPair = {
  status: 400,
  code: "UNKNOWN_PAIR",
  when: "currencyPairCode is not a trading pair",
} as const;
