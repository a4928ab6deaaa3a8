import { z } from "zod";
import { addressParam, integerParam, isHexAddress, isoUtcParam, pageSizeQuery } from "../../lib/http/index.ts";
import { POOL_SIDES, SOURCE_TIERS, WORKER_STATUSES } from "../../indexer/enums.ts";

/**
 * The ecosystem API's own request parameters (the shared ones are lib/http/params.ts): they
 * validate, convert query strings to typed values and document the parameters in /openapi.json.
 * Every message completes "<parameter>: ...".
 */

/** Times are compared with integer (int4) columns; later bounds are clamped in the queries. */
const MAX_UNIX_SECONDS = Number.MAX_SAFE_INTEGER;

const oneOf = (values: readonly string[]) => ({ error: `must be one of ${values.join(", ")}` });

/** SPEC.md's page query of the ecosystem endpoints: page, pageSize (default 20). */
export const pageQuery = pageSizeQuery();

export { addressParam };

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
  .refine((value) => isHexAddress(value) || /^\d{1,78}$/.test(value), {
    error: "must be a token address or a registry NFT id",
  })
  .meta({ pattern: "^(0x[0-9a-fA-F]{40}|\\d{1,78})$" });

export const unixSecondsParam = integerParam(0, MAX_UNIX_SECONDS, "must be a Unix time in seconds (integer >= 0)");

export const workerStatusParam = z.enum(WORKER_STATUSES, oneOf(WORKER_STATUSES));
export const sourceTierParam = z.enum(SOURCE_TIERS, oneOf(SOURCE_TIERS));
export const poolSideParam = z.enum(POOL_SIDES, oneOf(POOL_SIDES));

export const actionTypeParam = z.string().regex(/^[a-z0-9_]{1,32}$/, { error: "must match [a-z0-9_]{1,32}" });

export const booleanParam = z
  .enum(["true", "false"], { error: "must be true or false" })
  .transform((value) => value === "true")
  .pipe(z.boolean())
  .meta({ type: "boolean" });

export const enumParam = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values, oneOf(values));

const TIME_PROBLEM = "must be Unix seconds or ISO 8601 UTC without offset, e.g. 2026-04-29T12:00:00";

/**
 * A time bound: Unix seconds (digits, as every time of this API), or ISO 8601 UTC without offset
 * (what the exchange's /api/ohlc takes, SPEC.md). Unix seconds out; a fraction of a second is
 * dropped.
 */
export const timeParam = z
  .string({ error: "is required" })
  .transform((text, ctx) => {
    if (/^\d{1,11}$/.test(text)) return Number(text);
    const iso = isoUtcParam.safeParse(text);
    if (iso.success) return Math.floor(iso.data / 1_000_000);
    // A well-formed date that does not exist (2026-02-30) says so; anything else gets the format.
    const problem = iso.error.issues[0]!.message;
    ctx.addIssue({ code: "custom", message: problem.startsWith("is not a valid date") ? problem : TIME_PROBLEM });
    return z.NEVER;
  })
  .meta({
    type: "string",
    pattern: "^(\\d{1,11}|\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,6})?)?Z?)?)$",
    description: "Unix seconds, or ISO 8601 UTC without offset",
    example: "2026-04-29T12:00:00",
  });
