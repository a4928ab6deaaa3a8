import createClient from "openapi-fetch";
import type { WebConfig } from "../config.ts";
import { apiErrorOf, unreachable } from "../api/errors.ts";
import type { paths } from "../api/exchange.d.ts";

/**
 * The exchange's web account (exchange/README.md, "Web account"): Sign in with Ethereum, then the
 * session cookie (httpOnly, sent with `credentials: "include"`) manages API keys; every write
 * carries the session's CSRF token. No amounts pass here: plain JSON is exact.
 */
export type Account = paths["/api/account"]["get"]["responses"][200]["content"]["application/json"];
export type AccountKey =
  paths["/api/account/keys"]["get"]["responses"][200]["content"]["application/json"]["items"][number];
export type NewKey = paths["/api/account/keys"]["post"]["responses"][201]["content"]["application/json"];

export interface AccountClient {
  nonce(): Promise<string>;
  signIn(message: string, signature: string): Promise<Account>;
  /** The signed-in account, or null without a live session. */
  me(): Promise<Account | null>;
  keys(): Promise<AccountKey[]>;
  createKey(csrf: string): Promise<NewKey>;
  revokeKey(csrf: string, publicKey: string): Promise<void>;
  signOut(csrf: string): Promise<void>;
}

export function createAccountClient(config: WebConfig, fetchImpl: typeof fetch = (...a) => fetch(...a)): AccountClient {
  const client = createClient<paths>({ baseUrl: config.exchangeApiUrl, credentials: "include", fetch: fetchImpl });
  /** The answer's data, or the ApiError of a refusal; an unreachable exchange is status 0. */
  const settle = async <T>(call: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> => {
    let result: Awaited<ReturnType<typeof call>>;
    try {
      result = await call();
    } catch (cause) {
      throw unreachable("The exchange", cause);
    }
    if (!result.response.ok) throw apiErrorOf(result.response, result.error);
    return result.data as T;
  };
  const csrfHeader = (csrf: string) => ({ "X-CSRF-Token": csrf });
  return {
    nonce: async () => (await settle(() => client.GET("/api/auth/nonce"))).nonce,
    signIn: (message, signature) => settle(() => client.POST("/api/auth/session", { body: { message, signature } })),
    me: async () => (await settle(() => client.GET("/api/auth/session"))).account,
    keys: async () => (await settle(() => client.GET("/api/account/keys"))).items,
    createKey: (csrf) => settle(() => client.POST("/api/account/keys", { headers: csrfHeader(csrf) })),
    async revokeKey(csrf, publicKey) {
      await settle(() =>
        client.DELETE("/api/account/keys/{publicKey}", { params: { path: { publicKey } }, headers: csrfHeader(csrf) }),
      );
    },
    async signOut(csrf) {
      await settle(() => client.DELETE("/api/auth/session", { headers: csrfHeader(csrf) }));
    },
  };
}
