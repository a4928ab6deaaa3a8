import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { usePlatform } from "../context.ts";
import { type StreamStatus, useEventStream } from "../lib/event-stream.ts";
import { type ActionEntry, actionLogStreamUrl, isActionEntry } from "./entries.ts";
import { type ActionLogFilters, actionLogApiFilters, actionLogSearch } from "./filters.ts";
import { addLive, mergeLive, pruneLive } from "./live-merge.ts";

export const ACTION_PAGE_SIZE = 25;

export interface ActionLog {
  query: ReturnType<typeof useActionLogQuery>;
  /** Page 1: live entries on top of the page; later pages: the page as read. */
  rows: ActionEntry[] | undefined;
  /** Entries in the filter, live arrivals included. */
  totalItems: number;
  /** Entries that arrived since the page was read and that it does not show (later pages). */
  newSinceRead: number;
  status: StreamStatus;
}

function useActionLogQuery(filters: ActionLogFilters, pageSize: number) {
  const { api } = usePlatform();
  return useQuery({
    queryKey: ["action-logs", actionLogSearch({ ...filters, page: 1 }), filters.page, pageSize],
    queryFn: () =>
      api.eco("/api/agents/action-logs", {
        query: { ...actionLogApiFilters(filters), page: filters.page, pageSize },
      }),
    placeholderData: keepPreviousData,
  });
}

/**
 * A page of the action log, kept live: the stream (same filters) feeds new entries, which page 1
 * shows on top without a reload. `onEntry` hears each new entry (the worker page refreshes its
 * stats on it).
 */
export function useActionLog(
  filters: ActionLogFilters,
  { pageSize = ACTION_PAGE_SIZE, onEntry }: { pageSize?: number; onEntry?: (entry: ActionEntry) => void } = {},
): ActionLog {
  const { config } = usePlatform();
  const query = useActionLogQuery(filters, pageSize);
  const filterKey = actionLogSearch({ ...filters, page: 1 });
  const [live, setLive] = useState<{ key: string; entries: ActionEntry[] }>({ key: filterKey, entries: [] });
  // When each live entry arrived (ms), to tell a later page how many came after it was read.
  const arrivedAt = useRef(new Map<number, number>());
  // Entries heard under other filters do not belong to this view.
  const entries = live.key === filterKey ? live.entries : [];

  const pageItems = query.data && !query.isPlaceholderData ? query.data.items : undefined;
  // Once a re-read of page 1 holds an entry, the page shows it: the buffer keeps only what is newer.
  useEffect(() => {
    if (pageItems && filters.page === 1)
      setLive((l) => (l.key === filterKey ? { key: l.key, entries: pruneLive(l.entries, pageItems) } : l));
  }, [pageItems, filters.page, filterKey]);

  const status = useEventStream(
    actionLogStreamUrl(config.ecosystemApiUrl, filters),
    {
      action: (data) => {
        if (!isActionEntry(data)) return;
        if (!arrivedAt.current.has(data.entryId)) arrivedAt.current.set(data.entryId, Date.now());
        setLive((l) => ({
          key: filterKey,
          entries: addLive(l.key === filterKey ? l.entries : [], data),
        }));
        onEntry?.(data);
      },
    },
    // resync or retract: what the page and the buffer hold may be stale (a reorg withdrew an
    // entry, or the stream missed some): read the page again and let it replace the buffer.
    () => void query.refetch().then(() => setLive((l) => (l.key === filterKey ? { key: l.key, entries: [] } : l))),
  );

  const page = query.data?.items;
  const rows = page === undefined ? undefined : filters.page === 1 ? mergeLive(entries, page) : page;
  const fresh = page === undefined ? 0 : mergeLive(entries, page).length - page.length;
  const newSinceRead =
    filters.page === 1
      ? 0
      : entries.filter((e) => (arrivedAt.current.get(e.entryId) ?? 0) > query.dataUpdatedAt).length;
  return {
    query,
    rows,
    // Page 1 counts the live rows it shows; a later page's count is the one read with it.
    totalItems: (query.data?.totalItems ?? 0) + (filters.page === 1 ? fresh : 0),
    newSinceRead,
    status,
  };
}
