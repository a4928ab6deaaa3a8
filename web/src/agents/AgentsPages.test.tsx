// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../api/errors.ts";
import AgentsPage from "../pages/Agents.tsx";
import WorkerPage from "../pages/Worker.tsx";
import { directory, type EcoHandler, entry, FakeEventSource, renderTree } from "./test-support.tsx";

const TOKEN = `0x${"a".repeat(40)}`;

const overview = {
  hive: { totalTokens: 1, totalWorkers: 1, totalQueens: 2, totalScouts: 3 },
  swarm: { activeWorkers: 1, lastActivityAt: null },
  ecosystem: {
    totalAgentTokensSpawned: 1,
    tokensSpawnedLast24h: 1,
    tokensSpawnedLast7d: 1,
    totalActions24h: 5,
    totalOverrides24h: 1,
  },
};

function detail(status: "active" | "idle" | "suspended", suspendedUntil: number | null = null) {
  return {
    worker: {
      id: 1,
      agentNftId: 1,
      tokenAddress: TOKEN,
      deployedAt: 1_700_000_000,
      status,
      suspendedUntil,
      lastActiveAt: 1_700_000_100,
    },
    config: { slippageCapBps: 100, mevProtection: "private_relay", signalSubscriptions: ["price"] },
    recentActions: [],
    stats: { totalActions: 7, lastOverrideAt: 1_700_000_050, overridingTier: "queen" },
    votes: { activeProposals: 1, recentlyClosed: 0 },
  };
}

beforeEach(() => {
  FakeEventSource.instances = [];
  vi.stubGlobal("EventSource", FakeEventSource);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("the agents page", () => {
  it("lists workers with the URL's filters, rows linking to the worker and its token", async () => {
    const queries: unknown[] = [];
    const eco: EcoHandler = (path, params) => {
      if (path === "/api/agents/overview") return overview;
      if (path === "/api/agents/workers") {
        if (params?.query?.pageSize === 100) return directory;
        queries.push(params?.query);
        return { ...directory, items: directory.items.map((w) => ({ ...w, status: "suspended" })), pageSize: 20 };
      }
      throw new Error(`unexpected ${path}`);
    };
    const { tree, location } = renderTree(<AgentsPage />, eco, `/agents?status=suspended&token=${TOKEN}`);
    render(tree);
    const table = await screen.findByRole("table", { name: "Workers" });
    expect(queries[0]).toEqual({ page: 1, pageSize: 20, status: "suspended", tokenAddress: TOKEN });
    const row = within(table).getAllByRole("row")[1]!;
    expect(within(row).getByRole("link", { name: "Worker #1" }).getAttribute("href")).toBe("/agents/workers/1");
    expect(within(row).getByRole("link", { name: "ALPHA" }).getAttribute("href")).toBe(`/tokens/${TOKEN}`);
    expect(within(row).getByText("suspended")).toBeTruthy();
    const queensAndScouts = await screen.findByText("Queens · scouts");
    expect(queensAndScouts.nextElementSibling?.textContent).toBe("2 · 3");
    expect(screen.getAllByRole("heading", { level: 1 })).toHaveLength(1);

    fireEvent.change(screen.getByLabelText("Status"), { target: { value: "idle" } });
    expect(location.history.at(-1)).toBe(`/agents?status=idle&token=${TOKEN}`);
  });
});

describe("the worker page", () => {
  it("shows a suspended worker with its override and its actions, a new one arriving live", async () => {
    let reads = 0;
    const eco: EcoHandler = (path, params) => {
      if (path === "/api/agents/workers") return directory;
      if (path === "/api/agents/workers/{tokenId}") {
        expect(params?.path).toEqual({ tokenId: "1" });
        reads++;
        return detail("suspended", Math.floor(Date.now() / 1000) + 630);
      }
      if (path === "/api/agents/action-logs") {
        expect(params?.query).toMatchObject({ tokenId: "1", page: 1 });
        return { items: [entry(2), entry(1)], page: 1, pageSize: 20, totalItems: 2 };
      }
      throw new Error(`unexpected ${path}`);
    };
    render(renderTree(<WorkerPage tokenId="1" />, eco, "/agents/workers/1").tree);
    expect(await screen.findByRole("heading", { level: 1, name: /Worker #1/ })).toBeTruthy();
    expect(screen.getByText(/Last override by a queen/)).toBeTruthy();
    expect(screen.getByText(/Resumes by itself/).textContent).toContain("in 10 min");
    expect(screen.getByText("private_relay")).toBeTruthy();
    const table = await screen.findByRole("table", { name: /Actions on ALPHA/ });
    await waitFor(() => expect(within(table).getAllByRole("row")).toHaveLength(3));

    const stream = FakeEventSource.open("/api/agents/action-logs/stream");
    expect(new URL(stream.url).searchParams.get("tokenId")).toBe("1");
    act(() => stream.emit("action", entry(3), "103-3-00000003"));
    expect(within(table).getAllByRole("row")).toHaveLength(4);
    // The stats follow the new action.
    await waitFor(() => expect(reads).toBe(2));
  });

  it("shows a designed not-found state for an unknown token", async () => {
    const eco: EcoHandler = (path) => {
      if (path === "/api/agents/workers") return directory;
      throw new ApiError(404, "NOT_FOUND", "no agent token has this address or NFT id");
    };
    render(renderTree(<WorkerPage tokenId="999" />, eco, "/agents/workers/999").tree);
    expect(await screen.findByRole("heading", { level: 1, name: "Worker not found" })).toBeTruthy();
    expect(screen.getByRole("link", { name: "all workers" }).getAttribute("href")).toBe("/agents");
  });

  it("tells a 503 apart from not found, with a retry", async () => {
    const eco: EcoHandler = (path) => {
      if (path === "/api/agents/workers") return directory;
      throw new ApiError(503, "UNAVAILABLE", "The indexer is catching up", 5);
    };
    render(renderTree(<WorkerPage tokenId="1" />, eco, "/agents/workers/1").tree);
    expect(await screen.findByText("Temporarily unavailable")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Retry" })).toBeTruthy();
  });
});
