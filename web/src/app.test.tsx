// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { WagmiProvider } from "wagmi";
import { memoryLocation } from "wouter/memory-location";
import { Router } from "wouter";
import type { Api } from "./api/clients.ts";
import { ApiError } from "./api/errors.ts";
import { App } from "./app.tsx";
import { parseWebConfig } from "./config.ts";
import { PlatformContext } from "./context.ts";
import { createWagmiConfig } from "./wallet/wagmi.ts";

const config = parseWebConfig({
  ecosystemApiUrl: "http://127.0.0.1:1",
  exchangeApiUrl: "http://127.0.0.1:1",
  exchangeWsUrl: "ws://127.0.0.1:1/ws",
  rpcUrl: "http://127.0.0.1:1",
  chainId: 31337,
  contracts: {
    AgentSpawner: `0x${"1".repeat(40)}`,
    AgentRegistry: `0x${"2".repeat(40)}`,
    WorkerVoting: `0x${"3".repeat(40)}`,
    Booster: `0x${"4".repeat(40)}`,
  },
});

const token = `0x${"a".repeat(40)}`;
const answers: Record<string, unknown> = {
  "/api/agents/overview": {
    hive: { totalTokens: 5, totalWorkers: 5, totalQueens: 1, totalScouts: 2 },
    swarm: { activeWorkers: 3, lastActivityAt: 1_800_000_000 },
    ecosystem: {
      totalAgentTokensSpawned: 5,
      tokensSpawnedLast24h: 1,
      tokensSpawnedLast7d: 5,
      totalActions24h: 9,
      totalOverrides24h: 1,
    },
  },
  "/api/launchpad/tokens": {
    items: [
      {
        address: token,
        symbol: "ALPHA",
        name: "Alpha agent",
        spawnedAt: 1_800_000_000,
        tvl: "1234.5",
        volume24h: "10",
        tvlStable: "1234.5",
        volume24hStable: "10",
        holders: 7,
        workerStatus: "suspended",
        boosted: true,
      },
    ],
    page: 1,
    pageSize: 20,
    totalItems: 1,
  },
};

function renderAt(path: string, eco: Api["eco"]) {
  const api = { eco, exchange: async () => [] } as unknown as Api;
  const { hook } = memoryLocation({ path });
  return render(
    <PlatformContext value={{ config, api }}>
      <WagmiProvider config={createWagmiConfig(config)}>
        <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
          <Router hook={hook}>
            <App />
          </Router>
        </QueryClientProvider>
      </WagmiProvider>
    </PlatformContext>,
  );
}

afterEach(cleanup);

describe("App", () => {
  it("shows the launchpad: one h1, the connect button, a token table whose rows link to the token page", async () => {
    renderAt("/", (async (path: string) => answers[path]) as unknown as Api["eco"]);
    expect(screen.getAllByRole("heading", { level: 1 }).map((h) => h.textContent)).toEqual(["Launchpad"]);
    expect(screen.getByRole("button", { name: "Connect wallet" })).toBeTruthy();
    const link = await screen.findByRole("link", { name: /ALPHA/ });
    expect(link.getAttribute("href")).toBe(`/tokens/${token}`);
    expect(link.closest("table")).toBeTruthy();
    expect(await screen.findByText("1,234.5")).toBeTruthy();
  });

  it("says a 429 with its Retry-After, and an unknown token as such", async () => {
    renderAt("/", (async () => {
      throw new ApiError(429, "RATE_LIMITED", "Too many requests", 17);
    }) as unknown as Api["eco"]);
    expect((await screen.findAllByText(/Retry after 17 s/)).length).toBeGreaterThan(0);
    cleanup();
    renderAt(`/tokens/${token}`, (async () => {
      throw new ApiError(404, "NOT_FOUND", "No agent token");
    }) as unknown as Api["eco"]);
    // The token page is a lazy chunk (chart, wallet writes): its first import in the test takes a while.
    expect(await screen.findByRole("heading", { level: 1, name: "Unknown token" }, { timeout: 20_000 })).toBeTruthy();
  });

  it("says when the chain does not answer, while the indexer's reads still show", async () => {
    // config.rpcUrl is a closed port: every eth_blockNumber fails.
    renderAt("/", (async (path: string) => answers[path]) as unknown as Api["eco"]);
    expect(await screen.findByRole("link", { name: /ALPHA/ })).toBeTruthy();
    const banner = await screen.findByText("The chain is not answering", {}, { timeout: 15_000 });
    expect(banner.closest("[role=alert]")?.textContent).toContain("http://127.0.0.1:1");
  });
});
