import { z } from "zod";
import { POOL_SIDES, SOURCE_TIERS, WORKER_STATUSES } from "../../indexer/enums.ts";

/**
 * Request parameters as zod schemas: they validate, convert query strings to typed values and
 * (through z.toJSONSchema, output side) document the parameters in /openapi.json.
 * Every message completes "<parameter>: ...".
 */

/** Large enough for any real list, small enough that page x pageSize stays an exact number. */
export const MAX_PAGE = 1_000_000_000;
export const MAX_PAGE_SIZE = 100;
/** Times are compared with integer (int4) columns; later bounds are clamped in the queries. */
const MAX_UNIX_SECONDS = Number.MAX_SAFE_INTEGER;

/** A query-string integer: digits only (no sign, exponent, hex or blanks), then range-checked. */
export function integerParam(min: number, max: number, problem: string) {
  return z
    .string()
    .regex(/^\d{1,16}$/, { error: problem })
    .transform(Number)
    .pipe(z.number().int().min(min, { error: problem }).max(max, { error: problem }));
}

const oneOf = (values: readonly string[]) => ({ error: `must be one of ${values.join(", ")}` });

export const pageParam = integerParam(1, MAX_PAGE, `must be an integer from 1 to ${MAX_PAGE}`)
  .default(1)
  .describe("1-based page number; a page past the end has no items");

export const pageSizeParam = integerParam(1, MAX_PAGE_SIZE, `must be an integer from 1 to ${MAX_PAGE_SIZE}`)
  .default(20)
  .describe("Items per page");

export const pageQuery = z.object({ page: pageParam, pageSize: pageSizeParam });

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Any case in, lower case out: the database spells every address in lower case. */
export const addressParam = z
  .string()
  .regex(ADDRESS, { error: "must be a 0x-prefixed 20-byte hex address" })
  .transform((value) => value.toLowerCase())
  .pipe(z.string().regex(ADDRESS));

/** A registry NFT id (uint256): any number of digits a uint256 can have. */
export const nftIdParam = z
  .string()
  .regex(/^\d{1,78}$/, { error: "must be a non-negative integer (NFT id)" })
  .transform((value) => BigInt(value))
  .pipe(z.bigint())
  .meta({ type: "integer", minimum: 0 });

/** A path token reference: the token's address or its registry NFT id. */
export const tokenRefParam = z
  .string()
  .regex(/^(0x[0-9a-fA-F]{40}|\d{1,78})$/, { error: "must be a token address or a registry NFT id" });

export const unixSecondsParam = integerParam(0, MAX_UNIX_SECONDS, "must be a Unix time in seconds (integer >= 0)");

export const workerStatusParam = z.enum(WORKER_STATUSES, oneOf(WORKER_STATUSES));
export const sourceTierParam = z.enum(SOURCE_TIERS, oneOf(SOURCE_TIERS));
export const poolSideParam = z.enum(POOL_SIDES, oneOf(POOL_SIDES));

export const actionTypeParam = z.string().regex(/^[a-z0-9_]{1,32}$/, { error: "must match [a-z0-9_]{1,32}" });

export const booleanParam = z
  .enum(["true", "false"], { error: "must be true or false" })
  .transform((value) => value === "true")
  .pipe(z.boolean());

export const enumParam = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values, oneOf(values));
