// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import ActionLogPage from "../pages/ActionLog.tsx";
import { directory, type EcoHandler, entry, FakeEventSource, renderTree } from "./test-support.tsx";

const STREAM = "/api/agents/action-logs/stream";

function bodyRows() {
  const table = screen.getByRole("table");
  return within(table).getAllByRole("row").slice(1); // the header row
}

function rowIds() {
  return bodyRows().map((r) => Number(r.getAttribute("data-entry-id")));
}

describe("the action log page", () => {
  let stored: ReturnType<typeof entry>[];
  let queries: Record<string, unknown>[];
  const eco: EcoHandler = (path, params) => {
    if (path === "/api/agents/workers") return directory;
    if (path === "/api/agents/action-logs") {
      queries.push(params?.query ?? {});
      return { items: [...stored].reverse(), page: 1, pageSize: 25, totalItems: stored.length };
    }
    throw new Error(`unexpected ${path}`);
  };

  beforeEach(() => {
    FakeEventSource.instances = [];
    vi.stubGlobal("EventSource", FakeEventSource);
    stored = [entry(1), entry(2), entry(3)];
    queries = [];
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("prepends live entries without a reload, one row per entry even when the stream and a re-read overlap", async () => {
    render(renderTree(<ActionLogPage />, eco, "/agents/actions").tree);
    await waitFor(() => expect(rowIds()).toEqual([3, 2, 1]));
    expect(screen.getAllByRole("heading", { level: 1 })).toHaveLength(1);

    const stream = FakeEventSource.open(STREAM);
    act(() => stream.emit("action", entry(4), "104-4-00000004"));
    expect(rowIds()).toEqual([4, 3, 2, 1]);
    expect(screen.getByText(/4 entries/)).toBeTruthy();

    // A reconnect replays it; it is indexed meanwhile; a resync makes the page read it again.
    act(() => stream.emit("action", entry(4), "104-4-00000004"));
    stored.push(entry(4), entry(5));
    act(() => stream.emit("action", entry(5), "105-5-00000005"));
    act(() => stream.emit("resync", { reason: "replay_limit" }));
    await waitFor(() => expect(queries.length).toBeGreaterThanOrEqual(2));
    await waitFor(() => expect(rowIds()).toEqual([5, 4, 3, 2, 1]));
    const row = bodyRows()[0]!;
    expect(within(row).getByRole("link", { name: "ALPHA" }).getAttribute("href")).toBe(`/tokens/0x${"a".repeat(40)}`);
    expect(within(row).getByText("worker #1")).toBeTruthy();
  });

  it("reads its filters from the URL and sends them to the list and the stream", async () => {
    render(
      renderTree(<ActionLogPage />, eco, "/agents/actions?tier=queen&type=override&token=1&since=100&page=2").tree,
    );
    await waitFor(() => expect(queries.length).toBe(1));
    expect(queries[0]).toEqual({
      sourceTier: "queen",
      actionType: "override",
      tokenId: "1",
      since: 100,
      page: 2,
      pageSize: 25,
    });
    const stream = new URL(FakeEventSource.open(STREAM).url);
    expect(Object.fromEntries(stream.searchParams)).toEqual({
      sourceTier: "queen",
      actionType: "override",
      tokenId: "1",
      since: "100",
    });
    expect((screen.getByLabelText("Tier") as HTMLSelectElement).value).toBe("queen");
    expect((screen.getByLabelText("Type") as HTMLSelectElement).value).toBe("override");
  });

  it("writes a filter change into the URL, back at page 1", async () => {
    const { tree, location } = renderTree(<ActionLogPage />, eco, "/agents/actions?type=flag&page=3");
    render(tree);
    await waitFor(() => expect(rowIds()).toHaveLength(3));
    fireEvent.change(screen.getByLabelText("Tier"), { target: { value: "scout" } });
    expect(location.history.at(-1)).toBe("/agents/actions?tier=scout&type=flag");
    await waitFor(() => expect(queries.at(-1)).toMatchObject({ sourceTier: "scout", actionType: "flag", page: 1 }));
    fireEvent.click(screen.getByRole("button", { name: "Clear filters" }));
    expect(location.history.at(-1)).toBe("/agents/actions");
  });

  it("shows an entry both streamed and re-read once", async () => {
    const { tree, queryClient } = renderTree(<ActionLogPage />, eco, "/agents/actions");
    render(tree);
    await waitFor(() => expect(rowIds()).toEqual([3, 2, 1]));
    act(() => FakeEventSource.open(STREAM).emit("action", entry(4), "104-4-00000004"));
    stored.push(entry(4));
    await act(() => queryClient.invalidateQueries({ queryKey: ["action-logs"] }));
    await waitFor(() => expect(queries).toHaveLength(2));
    expect(rowIds()).toEqual([4, 3, 2, 1]);
  });

  it("labels every filter control", async () => {
    render(renderTree(<ActionLogPage />, eco, "/agents/actions").tree);
    for (const name of ["Tier", "Type", "Token", "From", "To"]) expect(screen.getByLabelText(name)).toBeTruthy();
  });
});
