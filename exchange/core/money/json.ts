// Exact decimals through JSON in both directions. SPEC.md's decimals are JSON numbers, and a
// binary float cannot carry 0.1 or an 18-decimal amount, so numbers are read from their source
// text (JSON.parse's reviver context) and written verbatim (JSON.rawJSON), never as floats.

interface ReviverContext {
  readonly source?: string;
}

interface RawJsonApi {
  rawJSON(text: string): unknown;
}

/** A JSON number as it was written in the request body, e.g. "0.25" or "1e-7". */
export class JsonNumber {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** JSON.parse that keeps every number as a JsonNumber holding its source text. */
export function parseJsonExact(text: string): unknown {
  return JSON.parse(text, function (this: unknown, _key: string, value: unknown, context?: ReviverContext) {
    if (typeof value !== "number") return value;
    if (context?.source === undefined)
      throw new Error("JSON.parse source text access is unavailable (Node >= 22 required)");
    return new JsonNumber(context.source);
  } as (this: unknown, key: string, value: unknown) => unknown);
}

/** Emits decimal text as a JSON number, digit for digit (trailing fractional zeros dropped). */
export function decimalJson(text: string): number {
  if (!/^-?\d+(\.\d+)?$/.test(text)) throw new RangeError(`not a plain decimal: ${text}`);
  const canonical = text.includes(".") ? text.replace(/\.?0+$/, "") : text;
  // rawJSON values serialise as their text; typed as number because that is what clients see.
  return (JSON as unknown as RawJsonApi).rawJSON(canonical === "-0" ? "0" : canonical) as number;
}

/** decimalJson for nullable values. */
export function decimalJsonOrNull(text: string | null): number | null {
  return text === null ? null : decimalJson(text);
}
