import { useSearchParams } from "wouter";
import { ActionLogTable } from "../agents/ActionLogTable.tsx";
import { useTokenDirectory } from "../agents/directory.ts";
import {
  type ActionLogFilters,
  actionLogSearch,
  fromDateTimeLocal,
  KNOWN_ACTION_TYPES,
  parseActionLogFilters,
  SOURCE_TIERS,
  toDateTimeLocal,
} from "../agents/filters.ts";
import { Pager } from "../components/Pager.tsx";
import { ACTION_PAGE_SIZE, useActionLog } from "../agents/useActionLog.ts";
import { LiveBadge } from "../components/live.tsx";
import { Empty, QueryState } from "../components/states.tsx";

const RANGES = [
  ["Last hour", 3600],
  ["Last 24 hours", 86_400],
  ["Last 7 days", 7 * 86_400],
] as const;

export default function ActionLogPage() {
  const [params, setParams] = useSearchParams();
  const filters = parseActionLogFilters(params);
  const tokens = useTokenDirectory();
  const log = useActionLog(filters);

  // A filter change starts again at page 1; typing in a date field replaces the history entry
  // instead of adding one per keystroke.
  const apply = (change: Partial<ActionLogFilters>, replace = false) =>
    setParams(actionLogSearch({ ...filters, page: 1, ...change }), { replace });
  const filtered =
    filters.tier || filters.type || filters.token || filters.since !== undefined || filters.until !== undefined;

  const types = [...KNOWN_ACTION_TYPES];
  if (filters.type && !types.includes(filters.type)) types.push(filters.type);
  const tokenOptions = [...tokens.values()].sort((a, b) => a.agentNftId - b.agentNftId);
  const tokenKnown = filters.token === undefined || tokenOptions.some((t) => String(t.agentNftId) === filters.token);

  return (
    <>
      <div className="row">
        <h1>Action log</h1>
        <LiveBadge status={log.status} />
      </div>
      <p className="muted">
        Every action the agents write on chain (queens, scouts and workers), newest first. New entries appear at the top
        as they are indexed. The filters are part of the address: share it to share this view.
      </p>
      <form className="toolbar" aria-label="Action log filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Tier
          <select
            value={filters.tier ?? ""}
            onChange={(e) => apply({ tier: (e.target.value || undefined) as ActionLogFilters["tier"] })}
          >
            <option value="">All tiers</option>
            {SOURCE_TIERS.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Type
          <select value={filters.type ?? ""} onChange={(e) => apply({ type: e.target.value || undefined })}>
            <option value="">All types</option>
            {types.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Token
          <select value={filters.token ?? ""} onChange={(e) => apply({ token: e.target.value || undefined })}>
            <option value="">All tokens</option>
            {!tokenKnown && <option value={filters.token}>#{filters.token}</option>}
            {tokenOptions.map((t) => (
              <option key={t.agentNftId} value={String(t.agentNftId)}>
                {t.symbol} (#{t.agentNftId})
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input
            type="datetime-local"
            value={filters.since === undefined ? "" : toDateTimeLocal(filters.since)}
            max={filters.until === undefined ? undefined : toDateTimeLocal(filters.until)}
            onChange={(e) => apply({ since: fromDateTimeLocal(e.target.value) }, true)}
          />
        </label>
        <label>
          To
          <input
            type="datetime-local"
            value={filters.until === undefined ? "" : toDateTimeLocal(filters.until)}
            min={filters.since === undefined ? undefined : toDateTimeLocal(filters.since)}
            onChange={(e) => apply({ until: fromDateTimeLocal(e.target.value, true) }, true)}
          />
        </label>
        <fieldset className="row">
          <legend className="muted">Time range</legend>
          {RANGES.map(([text, seconds]) => (
            <button
              key={text}
              type="button"
              className="secondary small"
              onClick={() => apply({ since: Math.floor(Date.now() / 1000) - seconds, until: undefined })}
            >
              {text}
            </button>
          ))}
        </fieldset>
        {filtered && (
          <button type="button" className="secondary" onClick={() => setParams("")}>
            Clear filters
          </button>
        )}
      </form>
      <QueryState query={log.query} loading="Loading the action log…">
        {() =>
          log.rows === undefined || log.rows.length === 0 ? (
            <Empty>
              {filtered
                ? "No action matches these filters. New ones will appear here as they happen."
                : "No agent has acted yet. Entries will appear here as the agents act."}
            </Empty>
          ) : (
            <>
              {log.newSinceRead > 0 && (
                <p role="status">
                  {log.newSinceRead} new {log.newSinceRead === 1 ? "entry" : "entries"} since this page was read.{" "}
                  <button type="button" className="small" onClick={() => apply({})}>
                    Show the newest
                  </button>
                </p>
              )}
              <ActionLogTable rows={log.rows} tokens={tokens} caption="Agent actions, newest first" />
              <Pager
                page={filters.page}
                pageSize={ACTION_PAGE_SIZE}
                totalItems={log.totalItems}
                noun="entries"
                label="Action log pages"
                onPage={(page) => setParams(actionLogSearch({ ...filters, page }))}
              />
            </>
          )
        }
      </QueryState>
    </>
  );
}
