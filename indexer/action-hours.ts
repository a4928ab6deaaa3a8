// The action_hour buckets (indexer/schema.ts): actions per target token and hour, kept by the
// ActionLog handler so "actions in the last 24 hours" never scans the whole window.

export const HOUR_SECONDS = 3_600;

/** The bucket of a block timestamp (Unix seconds). */
export const hourOf = (timestamp: number): number => Math.floor(timestamp / HOUR_SECONDS);

/**
 * How a window [start, +inf) splits: whole buckets from `firstWholeHour` on, and the partial
 * bucket before it, [start, boundary), counted exactly from the action rows.
 */
export function splitWindow(start: number): { firstWholeHour: number; boundary: number } {
  const firstWholeHour = Math.ceil(start / HOUR_SECONDS);
  return { firstWholeHour, boundary: firstWholeHour * HOUR_SECONDS };
}
