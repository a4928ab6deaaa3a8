import type { EcosystemData } from "../api/clients.ts";
import { type ActionLogFilters, actionLogApiFilters } from "./filters.ts";

/** An action-log entry: an item of GET /api/agents/action-logs and the data of its stream's `action` event. */
export type ActionEntry = EcosystemData<"/api/agents/action-logs">["items"][number];

/** The action-log stream with the list's filters (api/README.md, Streams). */
export function actionLogStreamUrl(base: string, filters: ActionLogFilters): string {
  const url = new URL("/api/agents/action-logs/stream", base);
  for (const [key, value] of Object.entries(actionLogApiFilters(filters))) url.searchParams.set(key, String(value));
  return url.toString();
}

/** `worker:3` as people read it: `worker #3` (worker ids for workers, NFT ids for queens and scouts). */
export function agentLabel(sourceAgentId: string): string {
  const colon = sourceAgentId.indexOf(":");
  return colon < 0 ? sourceAgentId : `${sourceAgentId.slice(0, colon)} #${sourceAgentId.slice(colon + 1)}`;
}

/**
 * An entry's payload in one readable line: `key: value` pairs, nested values as JSON, cut at
 * `max` characters (the full payload is the cell's title).
 */
export function payloadSummary(payload: Record<string, unknown> | null, max = 90): string {
  if (payload === null) return "";
  const text = Object.entries(payload)
    .map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(", ");
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A shape check of a stream event's data before it joins the list (the REST read has the truth). */
export function isActionEntry(data: unknown): data is ActionEntry {
  const e = data as Partial<ActionEntry> | null;
  return (
    typeof e === "object" &&
    e !== null &&
    typeof e.entryId === "number" &&
    typeof e.sourceAgentId === "string" &&
    typeof e.sourceTier === "string" &&
    typeof e.targetTokenId === "number" &&
    typeof e.actionType === "string" &&
    typeof e.timestamp === "number" &&
    typeof e.txHash === "string"
  );
}
