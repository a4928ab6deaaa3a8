/**
 * The action log's live entries (the SSE stream) shown with the REST page they arrived on top
 * of. The two overlap: an entry can arrive over the stream and then be in the next read of the
 * page, or be read first and then replayed by a reconnecting stream. Entry ids are handed out by
 * the ActionLog contract in chain order, so the id both orders and identifies an entry.
 */

export interface Entry {
  entryId: number;
}

/** Most live entries kept: a busy swarm must not grow the page without bound. */
export const LIVE_MAX = 200;

/**
 * Adds a stream entry to the live buffer (newest first): a replayed duplicate is dropped, an
 * out-of-order arrival is put in its place.
 */
export function addLive<T extends Entry>(live: readonly T[], entry: T, max = LIVE_MAX): T[] {
  if (live.some((e) => e.entryId === entry.entryId)) return live as T[];
  const next = [...live, entry].sort((a, b) => b.entryId - a.entryId);
  return next.slice(0, max);
}

/**
 * The rows to show: the live entries newer than the page's newest (what the page does not hold
 * yet) on top of the page. Live entries the page already holds, or that are older than its top
 * (they belong on a later page, or the page was re-read after them), are left to the page: one
 * row per entry, never two.
 */
export function mergeLive<T extends Entry>(live: readonly T[], page: readonly T[]): T[] {
  const newest = page.length > 0 ? Math.max(...page.map((e) => e.entryId)) : Number.NEGATIVE_INFINITY;
  const inPage = new Set(page.map((e) => e.entryId));
  const fresh = live.filter((e) => e.entryId > newest && !inPage.has(e.entryId));
  return [...fresh, ...page];
}

/** Live entries the page does not show yet: what still needs the buffer after a re-read. */
export function pruneLive<T extends Entry>(live: readonly T[], page: readonly T[]): T[] {
  const newest = page.length > 0 ? Math.max(...page.map((e) => e.entryId)) : Number.NEGATIVE_INFINITY;
  return live.filter((e) => e.entryId > newest);
}
