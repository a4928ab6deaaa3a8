import { and, asc, count, desc, eq, gte, lte, sql } from "ponder";
import { action } from "../../indexer/schema.ts";
import type { Condition, Db } from "../db.ts";
import { type Bucket, locatePage, offsetOf, type PageQuery, totalFromPage } from "../shared/pagination.ts";

/**
 * The action log, newest first, fast at any depth. Two facts of the ActionLog contract carry it:
 * entry ids are dense (1, 2, 3, ... with no gaps; Ponder indexes every entry, and a reorg drops
 * the newest ones first, so the indexed ids stay one run) and they grow with block time. So:
 * - a time window [since, until] is an entry-id range, found with two index probes;
 * - without other filters, a page is an id range too: no scan and no count;
 * - with filters, a page's ids come from the (filter, entryId) indexes and only the page's rows
 *   are fetched (a deferred join); a deep page is first located by a histogram over id buckets,
 *   so it costs about what counting the list costs, at any depth and whatever plan the database
 *   picks (PGlite has no autovacuum, so no planner statistics).
 */

export interface ActionFilter {
  tokenId?: bigint;
  actionType?: string;
  sourceTier?: string;
  since?: number;
  until?: number;
}

/** Timestamps are int4 columns: a bound past that range matches everything or nothing. */
const MAX_INT4 = 2_147_483_647;

export const actionColumns = {
  entryId: action.entryId,
  targetTokenId: action.targetTokenId,
  sourceTier: action.sourceTier,
  sourceAgentId: action.sourceAgentId,
  actionType: action.actionType,
  payload: action.payload,
  reasonCode: action.reasonCode,
  blockNumber: action.blockNumber,
  timestamp: action.timestamp,
  txHash: action.txHash,
};

export type ActionRow = {
  entryId: bigint;
  targetTokenId: bigint;
  sourceTier: string;
  sourceAgentId: bigint;
  actionType: string;
  payload: unknown;
  reasonCode: string;
  blockNumber: bigint;
  timestamp: number;
  txHash: `0x${string}`;
};

export interface ActionPage {
  rows: ActionRow[];
  total: number;
}

const NOTHING: ActionPage = { rows: [], total: 0 };

/** The filter's equality conditions (token, action type, tier); empty when it has none. */
export function filterEqualities(filter: ActionFilter): Condition[] {
  return [
    filter.tokenId !== undefined ? eq(action.targetTokenId, filter.tokenId) : undefined,
    filter.actionType !== undefined ? eq(action.actionType, filter.actionType) : undefined,
    filter.sourceTier !== undefined ? eq(action.sourceTier, filter.sourceTier) : undefined,
  ].filter((c) => c !== undefined);
}

/**
 * The filter's time window as conditions on the timestamp column; null when no entry can be in
 * it (a `since` past the int4 column's range). An `until` past that range bounds nothing.
 */
export function timeBounds(filter: ActionFilter): Condition[] | null {
  if (filter.since !== undefined && filter.since > MAX_INT4) return null;
  return [
    filter.since !== undefined ? gte(action.timestamp, filter.since) : undefined,
    filter.until !== undefined && filter.until < MAX_INT4 ? lte(action.timestamp, filter.until) : undefined,
  ].filter((c) => c !== undefined);
}

export async function findActions(db: Db, filter: ActionFilter, query: PageQuery): Promise<ActionPage> {
  const equalities = filterEqualities(filter);
  if (equalities.length === 0) return densePage(db, filter, query);
  const window = await entryWindow(db, filter.since, filter.until);
  if (window === null) return NOTHING;
  return filteredPage(db, and(...equalities, ...rangeConditions(window))!, query);
}

interface EntryWindow {
  lo?: bigint;
  hi?: bigint;
}

/** The entry-id range of a time window; null when no entry falls in it. */
export async function entryWindow(db: Db, since?: number, until?: number): Promise<EntryWindow | null> {
  const window: EntryWindow = {};
  if (since !== undefined) {
    if (since > MAX_INT4) return null;
    const lo = await firstEntryAtOrAfter(db, since);
    if (lo === undefined) return null;
    window.lo = lo;
  }
  if (until !== undefined && until < MAX_INT4) {
    const [last] = await db
      .select({ id: action.entryId })
      .from(action)
      .where(lte(action.timestamp, until))
      .orderBy(desc(action.timestamp), desc(action.entryId))
      .limit(1);
    if (last === undefined) return null;
    window.hi = last.id;
  }
  if (window.lo !== undefined && window.hi !== undefined && window.lo > window.hi) return null;
  return window;
}

/** The oldest entry recorded at or after `time` (ids grow with time, so every later entry follows it). */
export async function firstEntryAtOrAfter(db: Db, time: number): Promise<bigint | undefined> {
  const [first] = await db
    .select({ id: action.entryId })
    .from(action)
    .where(gte(action.timestamp, Math.max(0, time)))
    .orderBy(asc(action.timestamp), asc(action.entryId))
    .limit(1);
  return first?.id;
}

function rangeConditions(window: EntryWindow): Condition[] {
  return [
    window.lo !== undefined ? gte(action.entryId, window.lo) : undefined,
    window.hi !== undefined ? lte(action.entryId, window.hi) : undefined,
  ].filter((c) => c !== undefined);
}

/**
 * An unfiltered page (time window allowed) in one statement, since every round trip to an
 * embedded database costs about as much as the page itself: the window's first and last ids
 * (or the log's), then the page as an id range below the last. A page past the end still
 * returns one row, carrying the bounds.
 */
async function densePage(db: Db, filter: ActionFilter, query: PageQuery): Promise<ActionPage> {
  if (filter.since !== undefined && filter.since > MAX_INT4) return NOTHING;
  const lo =
    filter.since !== undefined
      ? sql`(select ${action.entryId} from ${action} where ${action.timestamp} >= ${filter.since} order by ${action.timestamp} asc, ${action.entryId} asc limit 1)`
      : sql`(select min(${action.entryId}) from ${action})`;
  const hi =
    filter.until !== undefined && filter.until < MAX_INT4
      ? sql`(select ${action.entryId} from ${action} where ${action.timestamp} <= ${filter.until} order by ${action.timestamp} desc, ${action.entryId} desc limit 1)`
      : sql`(select max(${action.entryId}) from ${action})`;
  const offset = offsetOf(query);
  const result = await db.execute(sql`
    with bounds as (select ${lo} as lo, ${hi} as hi)
    select bounds.lo::text as "lo", bounds.hi::text as "hi",
      ${action.entryId}::text as "entryId", ${action.targetTokenId}::text as "targetTokenId",
      ${action.sourceTier} as "sourceTier", ${action.sourceAgentId}::text as "sourceAgentId",
      ${action.actionType} as "actionType", ${action.payload} as "payload", ${action.reasonCode} as "reasonCode",
      ${action.blockNumber}::text as "blockNumber", ${action.timestamp} as "timestamp", ${action.txHash} as "txHash"
    from bounds left join ${action}
      on ${action.entryId} between greatest(bounds.lo, bounds.hi - ${offset + query.pageSize - 1}) and bounds.hi - ${offset}
    order by ${action.entryId} desc`);
  const raw = (result as unknown as { rows: RawDenseRow[] }).rows;
  const bounds = raw[0];
  if (!bounds || bounds.lo === null || bounds.hi === null) return NOTHING;
  const total = BigInt(bounds.hi) - BigInt(bounds.lo) + 1n;
  const rows = raw.filter((r) => r.entryId !== null).map(actionRowOf);
  return { rows, total: total > 0n ? Number(total) : 0 };
}

type RawDenseRow = { lo: string | null; hi: string | null } & {
  [K in keyof ActionRow]: K extends "timestamp" ? number : K extends "payload" ? unknown : string;
};

function actionRowOf(r: RawDenseRow): ActionRow {
  return {
    entryId: BigInt(r.entryId),
    targetTokenId: BigInt(r.targetTokenId),
    sourceTier: r.sourceTier,
    sourceAgentId: BigInt(r.sourceAgentId),
    actionType: r.actionType,
    // Drivers decode json columns already; a string here would be JSON text.
    payload: typeof r.payload === "string" ? JSON.parse(r.payload) : r.payload,
    reasonCode: r.reasonCode,
    blockNumber: BigInt(r.blockNumber),
    timestamp: Number(r.timestamp),
    txHash: r.txHash as `0x${string}`,
  };
}

async function filteredPage(db: Db, where: Condition, query: PageQuery): Promise<ActionPage> {
  const offset = offsetOf(query);
  // The first page is the common case: newest rows straight from the index, and when the page
  // is short it is the whole list, so no count.
  if (offset === 0) {
    const rows = await rowsBetween(db, where, undefined, query.pageSize, 0);
    const total = totalFromPage(0, rows.length, query.pageSize) ?? (await countActions(db, where));
    return { rows, total };
  }
  // Deeper pages: one pass over the matching ids counts them per id bucket (the total comes
  // with it), then the page is read from the few buckets that hold it. The cost is that of the
  // count, whatever the depth, and needs no planner statistics to stay so. Few buckets (about
  // 64 of at least 256 ids, sized from the log's id bounds in the same statement): a histogram
  // row costs more to return than many ids cost to count, and a bucket's id range reads fast.
  const widthOf = sql`(select greatest(256, (max(${action.entryId}) - min(${action.entryId}) + 64)::bigint / 64) from ${action})`;
  const result = await db.execute(sql`
    with b as (select ${widthOf} as width)
    select (${action.entryId}::bigint / b.width)::int as "bucket", b.width::int as "width", count(*)::int as "n"
    from ${action}, b where ${where} group by 1, 2`);
  // Hash-grouped in SQL, ordered here: sorting every matching id would cost more than counting.
  const histogram = (result as unknown as { rows: (Bucket & { width: number })[] }).rows.sort(
    (a, b) => b.bucket - a.bucket,
  );
  const width = histogram[0]?.width ?? 1;
  const total = histogram.reduce((sum, b) => sum + b.n, 0);
  const at = locatePage(histogram, offset, query.pageSize);
  if (at === null) return { rows: [], total };
  const range = { lo: BigInt(at.oldest) * BigInt(width), hi: BigInt(at.newest + 1) * BigInt(width) - 1n };
  return { rows: await rowsBetween(db, where, range, query.pageSize, at.skip), total };
}

async function countActions(db: Db, where: Condition) {
  const [row] = await db.select({ n: count() }).from(action).where(where);
  return row?.n ?? 0;
}

/** Newest-first rows of `where` within an id range: ids from the index, then rows by primary key. */
async function rowsBetween(
  db: Db,
  where: Condition,
  range: { lo: bigint; hi: bigint } | undefined,
  limit: number,
  skip: number,
) {
  const ids = db
    .select({ id: action.entryId })
    .from(action)
    .where(range ? and(where, gte(action.entryId, range.lo), lte(action.entryId, range.hi)) : where)
    .orderBy(desc(action.entryId))
    .limit(limit)
    .offset(skip)
    .as("page");
  return db.select(actionColumns).from(action).innerJoin(ids, eq(action.entryId, ids.id)).orderBy(desc(action.entryId));
}
