import { sql } from "ponder";
import { action, agentNft, agentToken, worker } from "../../indexer/schema.ts";
import type { Db } from "../db.ts";
import { DAY } from "../shared/clock.ts";
import type { Overview } from "./routes.ts";
import { workerStatusSql } from "../shared/worker-status.ts";

interface OverviewRow {
  tokens: number;
  last24h: number;
  last7d: number;
  workers: number;
  active: number;
  queens: number;
  scouts: number;
  lastActivityAt: number | null;
  actions24h: number;
  overrides24h: number;
}

/**
 * Every figure in one statement (each round trip to an embedded database costs about as much as
 * a small count). Action counts come from entry-id arithmetic: ids are dense and grow with time,
 * so the window's actions are the ids from its first entry to the newest.
 */
export async function overview(db: Db, now: number): Promise<Overview> {
  const dayAgo = now - DAY;
  const weekAgo = now - 7 * DAY;
  const result = await db.execute(sql`
    with recent as (
      select ${action.entryId} as first from ${action} where ${action.timestamp} > ${dayAgo}
      order by ${action.timestamp} asc, ${action.entryId} asc limit 1
    ), newest as (
      select ${action.entryId} as last, ${action.timestamp} as at from ${action} order by ${action.entryId} desc limit 1
    )
    select
      (select count(*) from ${agentToken})::int as "tokens",
      (select count(*) from ${agentToken} where ${agentToken.spawnedAt} > ${dayAgo})::int as "last24h",
      (select count(*) from ${agentToken} where ${agentToken.spawnedAt} > ${weekAgo})::int as "last7d",
      (select count(*) from ${worker})::int as "workers",
      (select count(*) from ${worker} where ${workerStatusSql(now)} = 'active')::int as "active",
      (select count(*) from ${agentNft} where ${agentNft.kind} = 'queen')::int as "queens",
      (select count(*) from ${agentNft} where ${agentNft.kind} = 'scout')::int as "scouts",
      (select at from newest) as "lastActivityAt",
      coalesce((select (newest.last - recent.first + 1)::int from newest, recent), 0) as "actions24h",
      -- ActionLog flags an entry as an override exactly when its type is "override", which has an
      -- (actionType, entryId) index: only the window's overrides are read.
      (select count(*) from ${action} where ${action.actionType} = 'override'
        and ${action.entryId} >= (select first from recent))::int as "overrides24h"`);
  const row = (result as unknown as { rows: OverviewRow[] }).rows[0]!;
  return {
    hive: { totalTokens: row.tokens, totalWorkers: row.workers, totalQueens: row.queens, totalScouts: row.scouts },
    swarm: { activeWorkers: row.active, lastActivityAt: row.lastActivityAt },
    ecosystem: {
      totalAgentTokensSpawned: row.tokens,
      tokensSpawnedLast24h: row.last24h,
      tokensSpawnedLast7d: row.last7d,
      totalActions24h: row.actions24h,
      totalOverrides24h: row.overrides24h,
    },
  };
}
