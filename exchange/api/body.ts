import type { z } from "zod";
import { ApiError, parseInput } from "../../lib/http/index.ts";
import { parseJsonExact } from "../core/money/json.ts";

/** Parses the exact bytes that were signed, keeping numbers exact, then validates them. */
export function parseBody<S extends z.ZodType>(schema: S, raw: string): z.output<S> {
  let value: unknown;
  try {
    value = parseJsonExact(raw);
  } catch {
    throw new ApiError(400, "INVALID_PARAM", "body: must be a JSON object");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ApiError(400, "INVALID_PARAM", "body: must be a JSON object");
  return parseInput(schema, value, "body");
}
