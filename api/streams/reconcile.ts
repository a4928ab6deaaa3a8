import { compareKeys } from "./event-id.ts";
import type { FeedEvent } from "./feed-event.ts";

export interface Reconciled<D> {
  /** Sent events the database no longer holds (or holds changed, under another id): to retract. */
  withdrawn: FeedEvent<D>[];
  /** Sent events still there. */
  kept: FeedEvent<D>[];
  /** Events to send: past the newest one sent, or taking the place of withdrawn ones. */
  fresh: FeedEvent<D>[];
}

/**
 * What a reorg changed among the events sent. `sent` are the events sent and still remembered
 * (not yet final), in chain order; `rows` is what the database holds now from the oldest of them
 * on, in chain order; `complete` is false when `rows` was cut at a limit, and then a sent event
 * past its last row is not judged yet (it stays kept until a later read reaches it).
 */
export function reconcile<D>(sent: FeedEvent<D>[], rows: FeedEvent<D>[], complete: boolean): Reconciled<D> {
  const present = new Set(rows.map((row) => row.id));
  const lastRow = rows.at(-1)?.key;
  const judged = (event: FeedEvent<D>) => complete || (lastRow !== undefined && compareKeys(event.key, lastRow) <= 0);
  const withdrawn = sent.filter((event) => judged(event) && !present.has(event.id));
  const gone = new Set(withdrawn.map((event) => event.id));
  const kept = sent.filter((event) => !gone.has(event.id));
  const keptIds = new Set(kept.map((event) => event.id));
  const newestSent = sent.at(-1)?.key;
  // Sent is in chain order, so the first withdrawn event is where the replaced branch starts.
  const branchStart = withdrawn[0]?.key;
  const fresh = rows.filter(
    (row) =>
      !keptIds.has(row.id) &&
      ((newestSent !== undefined && compareKeys(row.key, newestSent) > 0) ||
        (branchStart !== undefined && compareKeys(row.key, branchStart) >= 0)),
  );
  return { withdrawn, kept, fresh };
}
