import { and, asc, desc, gt, lte } from "ponder";
import { action } from "../../indexer/schema.ts";
import {
  type ActionFilter,
  type ActionRow,
  actionColumns,
  filterEqualities,
  timeBounds,
} from "../agents/action-log-query.ts";
import { toActionLogEntry } from "../agents/format.ts";
import type { ActionLogEntry } from "../agents/routes.ts";
import type { Db } from "../db.ts";
import { type ChainKey, eventIdOf } from "./event-id.ts";
import type { FeedEvent, FeedSource } from "./feed-event.ts";

/**
 * The action log as a stream. An entry's key is [block, entry id]: the ActionLog contract hands
 * out entry ids in chain order, so reading "after a key" is an entry-id range of the primary key.
 */

export type ActionEvent = FeedEvent<ActionLogEntry>;

export function toActionEvent(row: ActionRow): ActionEvent {
  const key: ChainKey = [Number(row.blockNumber), Number(row.entryId)];
  return { key, id: eventIdOf(key, row.txHash), event: "action", data: toActionLogEntry(row) };
}

export function actionSource(db: Db): FeedSource<ActionLogEntry> {
  return {
    async after(key, limit) {
      const rows = await db
        .select(actionColumns)
        .from(action)
        .where(key === null ? undefined : gt(action.entryId, BigInt(key[1])))
        .orderBy(asc(action.entryId))
        .limit(limit);
      return rows.map(toActionEvent);
    },
    async newest(limit) {
      const rows = await db.select(actionColumns).from(action).orderBy(desc(action.entryId)).limit(limit);
      return rows.reverse().map(toActionEvent);
    },
  };
}

/** The live side of the filters: the same rules as `replayActions` applies in SQL. */
export function matchesActionFilter(filter: ActionFilter, { data }: ActionEvent): boolean {
  return (
    (filter.tokenId === undefined || BigInt(data.targetTokenId) === filter.tokenId) &&
    (filter.actionType === undefined || data.actionType === filter.actionType) &&
    (filter.sourceTier === undefined || data.sourceTier === filter.sourceTier) &&
    (filter.since === undefined || data.timestamp >= filter.since) &&
    (filter.until === undefined || data.timestamp <= filter.until)
  );
}

/**
 * The newest `limit` entries matching `filter` in (after, upTo], in chain order: a reconnecting
 * client's catch-up, read from the (filter, entryId) indexes newest first.
 */
export async function replayActions(
  db: Db,
  filter: ActionFilter,
  after: ChainKey,
  upTo: ChainKey,
  limit: number,
): Promise<ActionEvent[]> {
  const time = timeBounds(filter);
  if (time === null) return [];
  const conditions = [
    gt(action.entryId, BigInt(after[1])),
    lte(action.entryId, BigInt(upTo[1])),
    ...filterEqualities(filter),
    ...time,
  ];
  const rows = await db
    .select(actionColumns)
    .from(action)
    .where(and(...conditions))
    .orderBy(desc(action.entryId))
    .limit(limit);
  return rows.reverse().map(toActionEvent);
}
