import { ApiError, apiErrorOf, unreachable } from "../api/errors.ts";
import type { WebConfig } from "../config.ts";
import { INTEGER_KEYS, parseExactJson } from "../lib/lossless-json.ts";

/**
 * The exchange's trading and wallet routes called with the web account's session instead of a
 * signature (exchange/README.md, "The session trades too"): the httpOnly cookie rides along
 * (`credentials: "include"`), and every write carries the session's CSRF token. Answers are read
 * exactly (lossless-json.ts): amounts arrive as decimal strings; counts and ids stay numbers.
 * Amounts are sent as decimal strings, which the exchange takes as exactly as JSON numbers.
 */

/** Integer fields of the wallet and order answers, beside the market data's. */
const SESSION_INTEGER_KEYS = new Set([
  ...INTEGER_KEYS,
  "chainId",
  "confirmations",
  "requiredConfirmations",
  "pageNumber",
  "pageSize",
  "totalItems",
  "tradeId",
]);

export type Query = Record<string, string | number | undefined>;

export interface SessionApi {
  get<T>(path: string, query?: Query): Promise<T>;
  /** A write: POST or DELETE with the session's CSRF token. */
  write<T>(method: "POST" | "DELETE", path: string, csrf: string, body?: unknown, query?: Query): Promise<T>;
}

export function createSessionApi(config: WebConfig, fetchImpl: typeof fetch = (...a) => fetch(...a)): SessionApi {
  const call = async <T>(method: string, path: string, init: { csrf?: string; body?: unknown; query?: Query }) => {
    const url = new URL(path, config.exchangeApiUrl);
    for (const [key, value] of Object.entries(init.query ?? {}))
      if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = {};
    if (init.csrf !== undefined) headers["X-CSRF-Token"] = init.csrf;
    if (init.body !== undefined) headers["Content-Type"] = "application/json";
    let response: Response;
    let text: string;
    try {
      response = await fetchImpl(url, {
        method,
        headers,
        credentials: "include",
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      text = await response.text();
    } catch (cause) {
      throw unreachable("The exchange", cause);
    }
    let body: unknown = null;
    try {
      body = text === "" ? null : parseExactJson(text, SESSION_INTEGER_KEYS);
    } catch {
      if (response.ok) throw new ApiError(response.status, "BAD_ANSWER", "The exchange answered something unreadable");
    }
    if (!response.ok) throw apiErrorOf(response, body);
    return body as T;
  };
  return {
    get: (path, query) => call("GET", path, { query }),
    write: (method, path, csrf, body, query) => call(method, path, { csrf, body, query }),
  };
}
