import { type ChainKey, compareKeys, keyOfEventId } from "./event-id.ts";
import type { FeedEvent } from "./feed-event.ts";
import type { Feed, FeedMessage } from "./feed.ts";

/** What a client is sent: feed messages, or a notice that what it holds is incomplete. */
export type Outgoing<D = unknown> =
  | FeedMessage<D>
  | { kind: "resync"; reason: ResyncReason; detail?: Record<string, unknown> };

/**
 * - unknown_last_event_id: Last-Event-ID names no event the database holds (a reorg withdrew it
 *   while the client was away, or it is from another chain): re-read the REST list; the stream
 *   goes on from now.
 * - replay_limit: more events were missed than a catch-up replays; the newest are sent, the older
 *   ones are not (the REST list has them).
 * - slow_client: the client fell too far behind; the stream ends (reconnect with Last-Event-ID).
 */
export type ResyncReason = "unknown_last_event_id" | "replay_limit" | "slow_client";

export const resync = <D>(reason: ResyncReason, detail?: Record<string, unknown>): Outgoing<D> => ({
  kind: "resync",
  reason,
  ...(detail ? { detail } : {}),
});

export interface ResumeInput<D> {
  feed: Feed<D>;
  /** The newest `limit` of the client's events in (after, upTo], in chain order. */
  replay(after: ChainKey, upTo: ChainKey, limit: number): Promise<FeedEvent<D>[]>;
  lastEventId: string;
  /** The feed's position when the client subscribed: live messages follow it. */
  position: ChainKey | null;
  replayMax: number;
}

/** A reconnecting client's catch-up: the events after its Last-Event-ID, and a filter against doubles. */
export async function resume<D>(input: ResumeInput<D>): Promise<{ opening: Outgoing<D>[]; live: LiveFilter<D> }> {
  const { feed, lastEventId, position, replayMax } = input;
  const key = keyOfEventId(lastEventId);
  const at = await feed.find(key);
  if (at?.id !== lastEventId)
    return { opening: [resync("unknown_last_event_id", { lastEventId })], live: new LiveFilter([], null, null) };
  // The client is ahead of this process's poller (another API process sent it): skip what it has.
  if (position === null || compareKeys(key, position) >= 0) return { opening: [], live: new LiveFilter([], key, null) };
  const rows = await feed.read("the missed events", () => input.replay(key, position, replayMax + 1));
  const replayed = rows.slice(-replayMax);
  const opening: Outgoing<D>[] = replayed.map((event) => ({ kind: "event", event }));
  if (rows.length > replayMax)
    opening.unshift(resync("replay_limit", { lastEventId, replayedFrom: replayed[0]!.id, replayMax }));
  return { opening, live: new LiveFilter(replayed, null, position) };
}

/**
 * Drops live messages the client already has from its catch-up. The catch-up read the database
 * up to the poller's position; a reorg meanwhile makes the poller publish again events the
 * catch-up already sent (by id). A retraction releases its id, so an event withdrawn and later
 * re-added is sent again. Events past the position can be no doubles: the filter then forgets.
 */
export class LiveFilter<D> {
  private readonly replayed: Set<string>;
  /** Events up to this key are the client's already (it is ahead of the poller). */
  private skipThrough: ChainKey | null;
  private readonly position: ChainKey | null;

  constructor(replayed: FeedEvent<D>[], skipThrough: ChainKey | null, position: ChainKey | null) {
    this.replayed = new Set(replayed.map((event) => event.id));
    this.skipThrough = skipThrough;
    this.position = position;
  }

  pass(message: FeedMessage<D>): boolean {
    if (message.kind === "retract") {
      this.replayed.delete(message.event.id);
      this.skipThrough = null;
      return true;
    }
    const { id, key } = message.event;
    if (this.replayed.has(id)) return false;
    if (this.skipThrough !== null) {
      if (compareKeys(key, this.skipThrough) <= 0) return false;
      this.skipThrough = null;
    }
    if (this.position !== null && compareKeys(key, this.position) > 0) this.replayed.clear();
    return true;
  }
}
