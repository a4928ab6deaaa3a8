import { and, asc, count, desc, eq, sql } from "ponder";
import { splitWindow } from "../../indexer/action-hours.ts";
import { action, actionHour, agentToken, proposal, worker } from "../../indexer/schema.ts";
import type { Db } from "../db.ts";
import { DAY } from "../shared/clock.ts";
import { offsetOf, type Page, type PageQuery, toPage } from "../shared/pagination.ts";
import { findToken } from "../shared/token-lookup.ts";
import { workerStateAt, workerStatusSql } from "../shared/worker-status.ts";
import { actionColumns, firstEntryAtOrAfter } from "./action-log-query.ts";
import { toWorkerAction } from "./format.ts";
import type { WorkerListItem, workerDetailResponse } from "./routes.ts";
import type { z } from "zod";

export const RECENT_ACTIONS = 20;

export interface WorkerFilter {
  status?: string;
  tokenAddress?: string;
}

export async function listWorkers(
  db: Db,
  now: number,
  filter: WorkerFilter,
  query: PageQuery,
): Promise<Page<WorkerListItem>> {
  // The status as of now: an override's suspension whose cool-off ended is over (worker-status.ts).
  const status = workerStatusSql(now);
  const where = and(
    filter.status !== undefined ? sql`${status} = ${filter.status}` : undefined,
    filter.tokenAddress !== undefined ? eq(worker.token, filter.tokenAddress as `0x${string}`) : undefined,
  );
  const actionCount24h = await actionsSinceSql(db, now - DAY + 1);
  const [rows, [total]] = await Promise.all([
    db
      .select({
        id: worker.id,
        agentNftId: worker.agentNftId,
        token: worker.token,
        symbol: agentToken.symbol,
        status,
        lastActiveAt: worker.lastActiveAt,
        slippageCapBps: worker.slippageCapBps,
        mevProtection: worker.mevProtection,
        actionCount24h,
      })
      .from(worker)
      .innerJoin(agentToken, eq(agentToken.address, worker.token))
      .where(where)
      .orderBy(asc(worker.id))
      .limit(query.pageSize)
      .offset(offsetOf(query)),
    db.select({ n: count() }).from(worker).innerJoin(agentToken, eq(agentToken.address, worker.token)).where(where),
  ]);
  const items = rows.map(
    (row): WorkerListItem => ({
      workerId: Number(row.id),
      agentNftId: Number(row.agentNftId),
      tokenAddress: row.token,
      tokenSymbol: row.symbol,
      status: row.status as WorkerListItem["status"],
      lastActiveAt: row.lastActiveAt,
      actionCount24h: row.actionCount24h,
      config: {
        slippageCapBps: row.slippageCapBps,
        mevProtection: row.mevProtection as WorkerListItem["config"]["mevProtection"],
      },
    }),
  );
  return toPage(items, query, total?.n ?? 0);
}

/**
 * Per worker row: actions on its token at or after `start`. Whole hours come from the
 * action_hour buckets; the partial hour before them is counted from the action rows, bounded
 * by entry ids (ids grow with time), so the cost is a few index lookups however busy the day.
 */
async function actionsSinceSql(db: Db, start: number) {
  const firstRecent = await firstEntryAtOrAfter(db, start);
  if (firstRecent === undefined) return sql<number>`0`;
  const { firstWholeHour, boundary } = splitWindow(start);
  const firstWhole = await firstEntryAtOrAfter(db, boundary);
  const partialIds =
    firstWhole === undefined
      ? sql`${action.entryId} >= ${firstRecent.toString()}::numeric`
      : sql`${action.entryId} >= ${firstRecent.toString()}::numeric and ${action.entryId} < ${firstWhole.toString()}::numeric`;
  return sql<number>`(
    coalesce((select sum(${actionHour.actions}) from ${actionHour}
      where ${actionHour.targetTokenId} = ${worker.agentNftId} and ${actionHour.hour} >= ${firstWholeHour}), 0)
    + (select count(*) from ${action} where ${action.targetTokenId} = ${worker.agentNftId} and ${partialIds}))::int`.mapWith(
    Number,
  );
}

type WorkerDetail = z.input<typeof workerDetailResponse>;

export async function workerDetail(db: Db, now: number, tokenRef: string): Promise<WorkerDetail> {
  const { token, worker: w } = await findToken(db, tokenRef);
  const [recent, [votes]] = await Promise.all([
    recentActions(db, token.nftId),
    db
      .select({
        // Open for voting as WorkerVoting.state() says Active. Pending ones (before startTime,
        // the voting delay) are neither active nor closed, so neither count includes them.
        active:
          sql<number>`count(*) filter (where ${proposal.startTime} <= ${now} and ${proposal.endTime} > ${now} and ${proposal.executedAt} is null)`.mapWith(
            Number,
          ),
        recentlyClosed:
          sql<number>`count(*) filter (where ${proposal.endTime} <= ${now} and ${proposal.endTime} > ${now - 7 * DAY})`.mapWith(
            Number,
          ),
      })
      .from(proposal)
      .where(eq(proposal.workerId, w.id)),
  ]);
  return {
    worker: {
      id: Number(w.id),
      agentNftId: Number(w.agentNftId),
      tokenAddress: w.token,
      deployedAt: w.deployedAt,
      ...workerStateAt(w, now),
      lastActiveAt: w.lastActiveAt,
    },
    config: {
      slippageCapBps: w.slippageCapBps,
      mevProtection: w.mevProtection as WorkerDetail["config"]["mevProtection"],
      signalSubscriptions: w.signalSubscriptions,
    },
    recentActions: recent.map(toWorkerAction),
    stats: {
      totalActions: w.totalActions,
      lastOverrideAt: w.lastOverrideAt,
      overridingTier: w.overridingTier as WorkerDetail["stats"]["overridingTier"],
    },
    votes: { activeProposals: votes?.active ?? 0, recentlyClosed: votes?.recentlyClosed ?? 0 },
  };
}

/** The newest actions on a token, from the (targetTokenId, entryId) index. */
export function recentActions(db: Db, nftId: bigint, limit = RECENT_ACTIONS) {
  return db
    .select(actionColumns)
    .from(action)
    .where(eq(action.targetTokenId, nftId))
    .orderBy(desc(action.entryId))
    .limit(limit);
}
