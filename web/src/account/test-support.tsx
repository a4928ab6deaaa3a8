import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { vi } from "vitest";
import { Router } from "wouter";
import { memoryLocation } from "wouter/memory-location";
import { testConfig } from "../agents/test-support.tsx";
import type { Api } from "../api/clients.ts";
import { PlatformContext } from "../context.ts";

/**
 * What the web account's and the trading screen's component tests share: the exchange faked at
 * `fetch` (session routes) and at `api.exchange` (public routes), every request remembered.
 */

export interface Sent {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: unknown;
  credentials: RequestCredentials | undefined;
}

/** Answers `[status, body text]` for a request; a JSON text keeps exact numbers as the server writes them. */
export type Route = (request: Sent) => [number, string] | undefined;

export function fakeExchange(route: Route, publicData: Record<string, unknown> = {}) {
  const sent: Sent[] = [];
  vi.stubGlobal("fetch", async (input: URL | string | Request, init: RequestInit = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers =
      input instanceof Request
        ? Object.fromEntries(input.headers.entries())
        : Object.fromEntries(
            Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]),
          );
    const bodyText = typeof init.body === "string" ? init.body : null;
    const request: Sent = {
      method: (input instanceof Request ? input.method : init.method) ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      headers,
      body: bodyText === null ? undefined : JSON.parse(bodyText),
      credentials: input instanceof Request ? input.credentials : init.credentials,
    };
    sent.push(request);
    const [status, text] = route(request) ?? [404, JSON.stringify({ code: "NOT_FOUND", message: "no fake route" })];
    return new Response(text, { status, headers: { "Content-Type": "application/json" } });
  });
  const api = {
    exchange: async (path: string) => {
      if (!(path in publicData)) throw new Error(`no fake public data for ${path}`);
      return publicData[path];
    },
  } as unknown as Api;
  return { sent, api };
}

export function renderWith(children: ReactNode, api: Api, url = "/") {
  const location = memoryLocation({ path: url, record: true });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return (
    <PlatformContext value={{ config: testConfig, api }}>
      <QueryClientProvider client={queryClient}>
        <Router hook={location.hook}>{children}</Router>
      </QueryClientProvider>
    </PlatformContext>
  );
}

export const ME = {
  userId: "11111111-1111-4111-8111-111111111111",
  address: `0x${"ab".repeat(20)}`,
  level: 0,
  sessionExpiresAt: Date.now() + 3_600_000,
  csrfToken: "csrf-token",
};
