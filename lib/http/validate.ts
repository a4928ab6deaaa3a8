import type { z } from "zod";
import { invalidParam } from "./errors.ts";

/**
 * Parses request input (query, path params, body) with a zod schema, or throws
 * 400 INVALID_PARAM naming the first offending parameter. Unknown keys are left to the schema
 * (z.object strips them, so unknown query parameters are ignored).
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, fallbackName = "request"): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const name = issue.path.length > 0 ? issue.path.map(String).join(".") : fallbackName;
  throw invalidParam(name, issue.message);
}
