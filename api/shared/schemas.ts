import { z } from "zod";
import { DECIMAL_TEXT } from "../../lib/http/index.ts";

/** Building blocks of the response schemas (documented in /openapi.json, typed in handlers). */

export const addressOut = z
  .string()
  .regex(/^0x[0-9a-f]{40}$/)
  .describe("Lower-case hex address");
export const txHashOut = z.string().regex(/^0x[0-9a-f]{64}$/);
export const unixTime = z.number().int().min(0).describe("Unix seconds of the block");

/** When a worker's suspension ends by itself, in every worker shape. */
export const suspendedUntil = z
  .number()
  .int()
  .min(0)
  .nullable()
  .describe(
    "Unix seconds when an override's suspension ends by itself (its cool-off), unless lifted before; null when the worker is not suspended, or is suspended by the manager (no end)",
  );
export const count = z.number().int().min(0);
export const integerId = z.number().int().min(0);
export const decimalString = z.string().regex(DECIMAL_TEXT).describe("Exact decimal string in whole units");
/** A decoded JSON payload: an object, or null when the bytes are not a JSON object. */
export const jsonObjectOrNull = z.record(z.string(), z.unknown()).nullable();

/** The schema of a page answer (toPage in pagination.ts builds one). */
export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    page: z.number().int().min(1),
    pageSize: z.number().int().min(1),
    totalItems: count,
  });
