import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Router } from "wouter";
import { memoryLocation } from "wouter/memory-location";
import type { Api } from "../api/clients.ts";
import type { WebConfig } from "../config.ts";
import { PlatformContext } from "../context.ts";

/** What the agents pages' component tests share: a fake platform, a memory router, a fake EventSource. */

export const ECO = "http://eco.test";

export const testConfig: WebConfig = {
  ecosystemApiUrl: ECO,
  exchangeApiUrl: "http://exchange.test",
  exchangeWsUrl: "ws://exchange.test/ws",
  rpcUrl: "http://rpc.test",
  chainId: 31337,
  contracts: {
    AgentSpawner: `0x${"1".repeat(40)}`,
    AgentRegistry: `0x${"2".repeat(40)}`,
    WorkerVoting: `0x${"3".repeat(40)}`,
    Booster: `0x${"4".repeat(40)}`,
  },
};

export type EcoHandler = (
  path: string,
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown> },
) => unknown;

export function renderTree(children: ReactNode, eco: EcoHandler, url: string) {
  const [path, search = ""] = url.split("?");
  const location = memoryLocation({ path, searchPath: search, record: true });
  const api = { eco: async (p: string, params?: never) => eco(p, params) } as unknown as Api;
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const tree = (
    <PlatformContext value={{ config: testConfig, api }}>
      <QueryClientProvider client={queryClient}>
        <Router hook={location.hook} searchHook={location.searchHook}>
          {children}
        </Router>
      </QueryClientProvider>
    </PlatformContext>
  );
  return { tree, location, queryClient };
}

/** EventSource stand-in: the test emits events; each instance remembers its URL. */
export class FakeEventSource {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static instances: FakeEventSource[] = [];
  readonly url: string;
  readyState = FakeEventSource.OPEN;
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  private listeners = new Map<string, ((event: MessageEvent<string>) => void)[]>();

  constructor(url: string | URL) {
    this.url = String(url);
    FakeEventSource.instances.push(this);
  }

  addEventListener(name: string, listener: (event: MessageEvent<string>) => void) {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
  }

  close() {
    this.readyState = FakeEventSource.CLOSED;
  }

  emit(name: string, data: unknown, id = "") {
    const event = { data: JSON.stringify(data), lastEventId: id } as MessageEvent<string>;
    for (const listener of this.listeners.get(name) ?? []) listener(event);
  }

  /** The open stream of a path (the newest, the one not closed). */
  static open(pathname: string): FakeEventSource {
    const found = FakeEventSource.instances.filter(
      (s) => s.readyState !== FakeEventSource.CLOSED && new URL(s.url).pathname === pathname,
    );
    const source = found.at(-1);
    if (!source) throw new Error(`no open stream at ${pathname}`);
    return source;
  }
}

export function entry(entryId: number, overrides: Record<string, unknown> = {}) {
  return {
    entryId,
    sourceAgentId: "worker:1",
    sourceTier: "worker",
    targetTokenId: 1,
    actionType: "trade",
    actionPayload: { side: "buy" },
    reasonCode: "momentum",
    blockNumber: 100 + entryId,
    timestamp: 1_700_000_000 + entryId,
    txHash: `0x${String(entryId).padStart(64, "0")}`,
    ...overrides,
  };
}

export const directory = {
  items: [
    {
      workerId: 1,
      agentNftId: 1,
      tokenAddress: `0x${"a".repeat(40)}`,
      tokenSymbol: "ALPHA",
      status: "active",
      lastActiveAt: 1_700_000_000,
      actionCount24h: 3,
      config: { slippageCapBps: 100, mevProtection: "off" },
    },
  ],
  page: 1,
  pageSize: 100,
  totalItems: 1,
};
