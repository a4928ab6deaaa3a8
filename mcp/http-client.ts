import type { ToolFailure } from "./errors.ts";

/** `fetch` or an in-process app's `request`: the same tools serve stdio (remote) and /mcp (in process). */
export type Fetcher = (url: string, init?: RequestInit) => Promise<Response>;

export type Answer<T = unknown> = { ok: true; body: T } | { ok: false; error: ToolFailure };

export type Query = Record<string, string | number | boolean | undefined>;

/** `path?query`, leaving out unset parameters (REST treats absent and default alike). */
export function pathWithQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text === "" ? path : `${path}?${text}`;
}

/**
 * One GET with a deadline. A REST refusal keeps its SPEC.md code; an unreachable or slow
 * platform is `UNAVAILABLE`/`TIMEOUT`, so a tool answers within its bound whatever happens.
 */
export async function getJson(
  fetcher: Fetcher,
  base: string,
  path: string,
  query: Query | undefined,
  signal: AbortSignal,
): Promise<Answer> {
  let response: Response;
  try {
    response = await fetcher(`${base}${pathWithQuery(path, query)}`, {
      signal,
      headers: { accept: "application/json" },
    });
  } catch {
    return signal.aborted
      ? { ok: false, error: { code: "TIMEOUT", message: "the platform did not answer in time" } }
      : { ok: false, error: { code: "UNAVAILABLE", message: "the platform is not reachable" } };
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return { ok: false, error: { code: signal.aborted ? "TIMEOUT" : "INTERNAL", message: "unreadable answer" } };
  }
  if (response.ok) return { ok: true, body };
  return { ok: false, error: failureOf(body, response.status) };
}

/** The ecosystem API answers `{code,message}`; the exchange too (SPEC.md "Errors"). */
export function failureOf(body: unknown, status: number): ToolFailure {
  if (typeof body === "object" && body !== null && "code" in body && typeof body.code === "string") {
    const message = "message" in body && typeof body.message === "string" ? body.message : body.code;
    return { code: body.code, message };
  }
  return {
    code: status === 404 ? "NOT_FOUND" : status === 429 ? "RATE_LIMITED" : "INTERNAL",
    message: `HTTP ${status}`,
  };
}
