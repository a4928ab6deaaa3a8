import type { ChainKey } from "./event-id.ts";

/** One event of a stream: where it stands in chain order, its SSE id and name, and its JSON. */
export interface FeedEvent<D = unknown> {
  readonly key: ChainKey;
  /** eventIdOf(key, txHash). */
  readonly id: string;
  /** The SSE `event:` name (action, spawn, swap, vote, boost). */
  readonly event: string;
  /** The `data:` JSON, shaped as the REST item of the same thing. */
  readonly data: D;
}

/** Where a feed reads its events: the indexed tables, or a test's list. */
export interface FeedSource<D = unknown> {
  /** Events after `key` (from the first when null), in chain order, at most `limit`. */
  after(key: ChainKey | null, limit: number): Promise<FeedEvent<D>[]>;
  /** The newest `limit` events, in chain order. */
  newest(limit: number): Promise<FeedEvent<D>[]>;
}
