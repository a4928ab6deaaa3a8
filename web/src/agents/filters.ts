/**
 * The agents pages' filters live in the URL query, so a filtered view is a link people can share
 * and the back button undoes a filter. Parsing is lenient (a hand-edited link with a bad value
 * drops that value instead of sending the API a request it answers 400); serializing writes
 * only what is set, in a fixed order, so one view has one URL.
 */

export const SOURCE_TIERS = ["queen", "scout", "worker"] as const;
export type SourceTier = (typeof SOURCE_TIERS)[number];

export const WORKER_STATUSES = ["active", "idle", "suspended"] as const;
export type WorkerStatus = (typeof WORKER_STATUSES)[number];

/** SPEC.md names these; the agents also write trade, rebalance and resume entries. */
export const KNOWN_ACTION_TYPES = ["config_update", "override", "flag", "directive", "trade", "rebalance", "resume"];

/** The API's own rules (api/shared/params.ts), checked here so a bad link never reaches it. */
const ACTION_TYPE = /^[a-z0-9_]{1,32}$/;
const NFT_ID = /^\d{1,78}$/;
const UNIX_SECONDS = /^\d{1,11}$/;
const PAGE = /^[1-9]\d{0,5}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export interface ActionLogFilters {
  tier?: SourceTier;
  type?: string;
  /** Registry NFT id of the target token, as a decimal string (uint256). */
  token?: string;
  /** Inclusive bounds, Unix seconds. */
  since?: number;
  until?: number;
  page: number;
}

export interface WorkerFilters {
  status?: WorkerStatus;
  /** Lower-case token address. */
  token?: string;
  page: number;
}

function pageOf(params: URLSearchParams): number {
  const page = params.get("page") ?? "";
  return PAGE.test(page) ? Number(page) : 1;
}

function oneOf<T extends string>(values: readonly T[], value: string | null): T | undefined {
  return values.find((v) => v === value);
}

function unixOf(value: string | null): number | undefined {
  return value !== null && UNIX_SECONDS.test(value) ? Number(value) : undefined;
}

export function parseActionLogFilters(search: string | URLSearchParams): ActionLogFilters {
  const params = typeof search === "string" ? new URLSearchParams(search) : search;
  const type = params.get("type") ?? "";
  const token = params.get("token") ?? "";
  let since = unixOf(params.get("since"));
  let until = unixOf(params.get("until"));
  // The API refuses since > until; a link saying so most likely has them swapped.
  if (since !== undefined && until !== undefined && since > until) [since, until] = [until, since];
  return {
    tier: oneOf(SOURCE_TIERS, params.get("tier")),
    type: ACTION_TYPE.test(type) ? type : undefined,
    token: NFT_ID.test(token) ? token.replace(/^0+(?=\d)/, "") : undefined,
    since,
    until,
    page: pageOf(params),
  };
}

/** The query string (no `?`) of a filtered view; page 1 and unset filters are left out. */
export function actionLogSearch(filters: ActionLogFilters): string {
  const params = new URLSearchParams();
  if (filters.tier) params.set("tier", filters.tier);
  if (filters.type) params.set("type", filters.type);
  if (filters.token) params.set("token", filters.token);
  if (filters.since !== undefined) params.set("since", String(filters.since));
  if (filters.until !== undefined) params.set("until", String(filters.until));
  if (filters.page > 1) params.set("page", String(filters.page));
  return params.toString();
}

/** The filters as the API's query (GET /api/agents/action-logs and its stream), no paging. */
export function actionLogApiFilters(filters: ActionLogFilters) {
  return {
    ...(filters.tier ? { sourceTier: filters.tier } : {}),
    ...(filters.type ? { actionType: filters.type } : {}),
    // The generated type says number; the API takes the digits as they are (a uint256 can
    // exceed a double), and every id the demo hands out fits one anyway.
    ...(filters.token ? { tokenId: filters.token as unknown as number } : {}),
    ...(filters.since !== undefined ? { since: filters.since } : {}),
    ...(filters.until !== undefined ? { until: filters.until } : {}),
  };
}

export function parseWorkerFilters(search: string | URLSearchParams): WorkerFilters {
  const params = typeof search === "string" ? new URLSearchParams(search) : search;
  const token = params.get("token") ?? "";
  return {
    status: oneOf(WORKER_STATUSES, params.get("status")),
    token: ADDRESS.test(token) ? token.toLowerCase() : undefined,
    page: pageOf(params),
  };
}

export function workerSearch(filters: WorkerFilters): string {
  const params = new URLSearchParams();
  if (filters.status) params.set("status", filters.status);
  if (filters.token) params.set("token", filters.token);
  if (filters.page > 1) params.set("page", String(filters.page));
  return params.toString();
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/**
 * Unix seconds as an `<input type="datetime-local">` value, in the browser's time zone (what
 * the person picking a range reads on their clock), to the minute.
 */
export function toDateTimeLocal(unixSeconds: number): string {
  const d = new Date(unixSeconds * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/**
 * An `<input type="datetime-local">` value (local time) as Unix seconds, or undefined when empty
 * or unreadable. `endOfMinute` makes an upper bound inclusive of the whole minute picked.
 */
export function fromDateTimeLocal(value: string, endOfMinute = false): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number);
  const date = new Date(y!, mo! - 1, d!, h!, mi!, Number.isNaN(s) ? 0 : s!);
  if (Number.isNaN(date.getTime()) || date.getMonth() !== mo! - 1) return undefined;
  const seconds = Math.floor(date.getTime() / 1000);
  return endOfMinute && match[6] === undefined ? seconds + 59 : seconds;
}
