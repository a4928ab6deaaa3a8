import createClient from "openapi-fetch";
import type { WebConfig } from "../config.ts";
import { type Exact, parseExactJson } from "../lib/lossless-json.ts";
import type { paths as EcosystemPaths } from "./ecosystem.d.ts";
import { ApiError, apiErrorOf, unreachable } from "./errors.ts";
import type { paths as ExchangePaths } from "./exchange.d.ts";

/**
 * The two APIs, typed from their OpenAPI documents (`npm run gen:api`). Ecosystem amounts are
 * decimal strings already; the exchange's are exact JSON numbers, read here as decimal strings
 * (lossless-json.ts) so no price or amount passes through a double.
 */

export type EcosystemClient = ReturnType<typeof createClient<EcosystemPaths>>;

type GetPaths<P> = { [K in keyof P]: P[K] extends { get: unknown } ? K : never }[keyof P];
type Json200<Op> = Op extends { responses: { 200: { content: { "application/json": infer T } } } } ? T : never;
type QueryOf<Op> = Op extends { parameters: { query?: infer Q } } ? Q : never;

/** The answer of `GET path` on the ecosystem API. */
export type EcosystemData<P extends GetPaths<EcosystemPaths>> = Json200<EcosystemPaths[P]["get"]>;
/** The answer of `GET path` on the exchange, numbers as decimal strings (integer keys kept). */
export type ExchangeData<P extends GetPaths<ExchangePaths>> = Exact<
  Json200<ExchangePaths[P]["get"]>,
  "timestamp" | "digitsPrice" | "digitsAmount" | "lastUpdateId" | "serverTime"
>;

export interface Api {
  ecosystem: EcosystemClient;
  /** GET on the ecosystem API: the answer, or an ApiError. */
  eco<P extends GetPaths<EcosystemPaths>>(
    path: P,
    params?: { path?: Record<string, string | number>; query?: QueryOf<EcosystemPaths[P]["get"]> },
  ): Promise<EcosystemData<P>>;
  /** GET on the exchange: the answer with exact decimals, or an ApiError. */
  exchange<P extends GetPaths<ExchangePaths>>(
    path: P,
    query?: QueryOf<ExchangePaths[P]["get"]>,
  ): Promise<ExchangeData<P>>;
}

export function createApi(config: WebConfig, fetchImpl: typeof fetch = (...args) => fetch(...args)): Api {
  const ecosystem = createClient<EcosystemPaths>({ baseUrl: config.ecosystemApiUrl, fetch: fetchImpl });
  return {
    ecosystem,
    async eco(path, params) {
      let result: { data?: unknown; error?: unknown; response: Response };
      try {
        // openapi-fetch's per-path overloads do not narrow through a generic path; the answer's
        // type is restored from the same document below.
        result = await (ecosystem.GET as (p: string, init: unknown) => Promise<typeof result>)(path as string, {
          params: { path: params?.path, query: params?.query },
        });
      } catch (cause) {
        throw unreachable("The ecosystem API", cause);
      }
      if (!result.response.ok) throw apiErrorOf(result.response, result.error);
      return result.data as never;
    },
    async exchange(path, query) {
      const url = new URL(String(path), config.exchangeApiUrl);
      for (const [key, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
        if (value !== undefined) url.searchParams.set(key, String(value));
      }
      let response: Response;
      let text: string;
      try {
        response = await fetchImpl(url);
        text = await response.text();
      } catch (cause) {
        throw unreachable("The exchange", cause);
      }
      let body: unknown = null;
      try {
        body = parseExactJson(text);
      } catch {
        if (response.ok)
          throw new ApiError(response.status, "BAD_ANSWER", "The exchange answered something unreadable");
      }
      if (!response.ok) throw apiErrorOf(response, body);
      return body as never;
    },
  };
}
