import type { ToolFailure } from "./errors.ts";

/** `fetch` or an in-process app's `request`: the same tools serve stdio (remote) and /mcp (in process). */
export type Fetcher = (url: string, init?: RequestInit) => Promise<Response>;

/** `inProcess`: the API's own value, as its REST route sends it (not JSON text from afar). */
export type Answer<T = unknown> = { ok: true; body: T; inProcess?: true } | { ok: false; error: ToolFailure };

export type Query = Record<string, string | number | boolean | undefined>;

/**
 * The platform's own read of `path` in process (/mcp inside the API): its answer without a
 * Request, middleware or JSON text; undefined when it has no read at that path (then HTTP).
 * `query` is as REST receives it, text.
 */
export type LocalRead = (path: string, query: Record<string, string>) => Promise<Answer> | undefined;

/** Where a side of the platform answers: over HTTP, and for the API's reads in process when `local` is given. */
export interface ReadTarget {
  fetch: Fetcher;
  base: string;
  local?: LocalRead;
}

/** The query as REST receives it: text, leaving out unset parameters (REST treats absent and default alike). */
export function queryText(query: Query = {}): Record<string, string> {
  const text: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) if (value !== undefined) text[key] = String(value);
  return text;
}

/** `path?query`, leaving out unset parameters. */
export function pathWithQuery(path: string, query: Query = {}): string {
  const text = new URLSearchParams(queryText(query)).toString();
  return text === "" ? path : `${path}?${text}`;
}

const TIMED_OUT: Answer = { ok: false, error: { code: "TIMEOUT", message: "the platform did not answer in time" } };

/**
 * One read with a deadline: in process when the target has that read, else a GET. A local read
 * cannot be cancelled (the database finishes its query), but the tool answers TIMEOUT at the
 * deadline all the same, as it does when a remote platform is slow.
 */
export function readJson(target: ReadTarget, path: string, query: Query | undefined, signal: AbortSignal) {
  const local = target.local?.(path, queryText(query));
  if (local === undefined) return getJson(target.fetch, target.base, path, query, signal);
  if (signal.aborted) return Promise.resolve(TIMED_OUT);
  let onAbort = () => {};
  const timedOut = new Promise<Answer>((resolve) => {
    onAbort = () => resolve(TIMED_OUT);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  const answered = local.then(
    (answer): Answer => (answer.ok ? { ok: true, body: answer.body, inProcess: true } : answer),
  );
  return Promise.race([answered, timedOut]).finally(() => signal.removeEventListener("abort", onAbort));
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
