import { sql } from "ponder";
import type { WorkerStatus } from "../../indexer/enums.ts";
import { worker } from "../../indexer/schema.ts";

/**
 * A worker's status as of `now`. An override suspends a worker until a resume or until its
 * cool-off ends (ActionLog); the end of a cool-off is no transaction, so no event tells the
 * indexer: the registry reads such a suspension as over from `until` on, and so does every
 * reader here. One rule, in SQL for filters and counts and in TypeScript for a fetched row.
 */

interface WorkerStatusRow {
  readonly status: string;
  readonly suspendedUntil: number | null;
  readonly resumeStatus: string | null;
}

export function workerStatusAt(row: WorkerStatusRow, now: number): WorkerStatus {
  if (row.status === "suspended" && row.suspendedUntil !== null && row.suspendedUntil <= now)
    return (row.resumeStatus ?? "active") as WorkerStatus;
  return row.status as WorkerStatus;
}

/**
 * The status as of `now` and, while an override's suspension lasts, when it ends by itself
 * (null otherwise: not suspended, or suspended by the manager, which has no end).
 */
export function workerStateAt(
  row: WorkerStatusRow,
  now: number,
): { status: WorkerStatus; suspendedUntil: number | null } {
  const status = workerStatusAt(row, now);
  return { status, suspendedUntil: status === "suspended" ? row.suspendedUntil : null };
}

/** The same rule as a column expression on the worker table. */
export function workerStatusSql(now: number) {
  return sql<WorkerStatus>`(case when ${worker.status} = 'suspended' and ${worker.suspendedUntil} <= ${now}
    then coalesce(${worker.resumeStatus}, 'active') else ${worker.status} end)`;
}
