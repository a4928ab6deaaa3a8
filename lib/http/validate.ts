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
  throw invalidParam(name, issue.code === "invalid_type" ? wrongType(issue, input) : issue.message);
}

/**
 * zod names a received object by its class: the exchange's exact JSON parser turns every number
 * into a JsonNumber, so a number sent where a string or boolean belongs read "received
 * JsonNumber". Input here is JSON (or text), so any object of a class was a JSON number.
 */
function wrongType(issue: z.core.$ZodIssueInvalidType, input: unknown): string {
  if (!issue.message.startsWith("Invalid input: expected ")) return issue.message;
  const value = issue.path.reduce<unknown>(
    (at, key) => (at !== null && typeof at === "object" ? (at as Record<PropertyKey, unknown>)[key] : undefined),
    input,
  );
  const received =
    value === null
      ? "null"
      : Array.isArray(value)
        ? "array"
        : typeof value === "object" && Object.getPrototypeOf(value) !== Object.prototype
          ? "number"
          : typeof value;
  return `Invalid input: expected ${issue.expected}, received ${received}`;
}
