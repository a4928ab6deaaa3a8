import { withDeadline } from "../../lib/deadline.ts";
import { type ChainKey, compareKeys, keyBefore } from "./event-id.ts";
import type { FeedEvent, FeedSource } from "./feed-event.ts";
import { reconcile } from "./reconcile.ts";

/**
 * One shared poller per stream: every `pollMs` it reads the events committed since the last
 * read (one query for all clients, whatever their number) and hands each message to every
 * subscriber in memory. It runs only while someone listens.
 *
 * Reorgs: Ponder deletes the rows of reorged blocks and writes the new branch's. The poller
 * remembers the events it sent that may still be reorged (those of the last `windowBlocks`
 * blocks, at most `rememberMax`) and, on each read, first checks that the newest one is still
 * there under the same id. A reorg removes a suffix of the chain, so when the newest survives
 * all do; when it does not, every remembered event is compared with the database: the ones gone
 * are retracted, newest first, and the new branch's events are sent after them.
 */

/** An event to send, or one sent earlier that a reorg withdrew. */
export type FeedMessage<D = unknown> =
  | { kind: "event"; event: FeedEvent<D> }
  | { kind: "retract"; event: FeedEvent<D> };
export type Listener<D = unknown> = (message: FeedMessage<D>) => void;

export interface Subscription {
  /**
   * The key of the newest event published before this subscription (null on an empty feed):
   * every later message reaches the listener. Rejects when the database does not answer.
   */
  readonly position: Promise<ChainKey | null>;
  close(): void;
}

export interface Feed<D = unknown> {
  subscribe(listener: Listener<D>): Subscription;
  /** The event at `key`, if the database holds one there. */
  find(key: ChainKey): Promise<FeedEvent<D> | undefined>;
  /** Any read of this stream's tables (a client's catch-up), bounded by the same timeout. */
  read<T>(what: string, query: () => Promise<T>): Promise<T>;
  readonly subscribers: number;
}

export interface FeedOptions<D> {
  name: string;
  source: FeedSource<D>;
  pollMs: number;
  /** Blocks that may still be reorged (Ponder's finality depth of the chain). */
  windowBlocks: number;
  /** Most events remembered for retraction. */
  rememberMax?: number;
  /** Most new events read per poll. */
  batch?: number;
  /** Most ms one database read may take. */
  dbTimeoutMs?: number;
  log?: (message: string, error?: unknown) => void;
}

interface State<D> {
  /** Key of the newest event published (null before any). */
  cursor: ChainKey | null;
  /** Published events that may still be reorged, in chain order. */
  sent: FeedEvent<D>[];
  /** Newest block seen. */
  head: number;
}

export const REMEMBER_MAX = 2_000;
export const BATCH = 500;
export const DB_TIMEOUT_MS = 5_000;

export function createFeed<D>(options: FeedOptions<D>): Feed<D> {
  const { name, source, pollMs, windowBlocks } = options;
  const rememberMax = options.rememberMax ?? REMEMBER_MAX;
  const batch = options.batch ?? BATCH;
  const dbTimeoutMs = options.dbTimeoutMs ?? DB_TIMEOUT_MS;
  const log = options.log ?? ((message, error) => console.error(message, error ?? ""));
  const listeners = new Set<Listener<D>>();
  let state: State<D> | undefined;
  let starting: Promise<State<D>> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;

  const read = <T>(what: string, query: () => Promise<T>) =>
    withDeadline(
      query(),
      dbTimeoutMs,
      () => new Error(`${name} stream: ${what} did not answer within ${dbTimeoutMs} ms`),
    );

  const publish = (message: FeedMessage<D>) => {
    for (const listener of listeners) {
      try {
        listener(message);
      } catch (error) {
        log(`${name} stream: a subscriber failed`, error);
      }
    }
  };

  /** Forgets what no reorg can change any more, and what is beyond the memory bound. */
  const prune = (s: State<D>) => {
    let drop = 0;
    while (drop < s.sent.length && s.sent[drop]!.key[0] <= s.head - windowBlocks) drop++;
    drop = Math.max(drop, s.sent.length - rememberMax);
    if (drop > 0) s.sent = s.sent.slice(drop);
  };

  const append = (s: State<D>, fresh: FeedEvent<D>[]) => {
    if (fresh.length === 0) return;
    s.sent.push(...fresh);
    const last = fresh.at(-1)!.key;
    if (s.cursor === null || compareKeys(last, s.cursor) > 0) s.cursor = last;
    s.head = Math.max(s.head, last[0]);
    prune(s);
    for (const event of fresh) publish({ kind: "event", event });
  };

  const tick = async (s: State<D>) => {
    const newest = s.sent.at(-1);
    if (newest === undefined) {
      const fresh = await read("new events", () => source.after(s.cursor, batch));
      if (state === s) append(s, fresh);
      return;
    }
    // Read from the newest event sent on: still first, under the same id, means no reorg.
    const rows = await read("new events", () => source.after(keyBefore(newest.key), batch + 1));
    if (state !== s) return;
    if (rows[0]?.id === newest.id) return append(s, rows.slice(1));
    const limit = s.sent.length + batch;
    const all = await read("the unfinalized events", () => source.after(keyBefore(s.sent[0]!.key), limit));
    if (state !== s) return;
    const { withdrawn, kept, fresh } = reconcile(s.sent, all, all.length < limit);
    s.sent = kept;
    // The newest event still standing; none: just before the withdrawn branch.
    if (kept.length > 0) s.cursor = kept.at(-1)!.key;
    else if (withdrawn[0]) s.cursor = keyBefore(withdrawn[0].key);
    for (const event of [...withdrawn].reverse()) publish({ kind: "retract", event });
    append(s, fresh);
    // Fresh events fall between kept ones only if the database broke chain order; `sent` stays sorted anyway.
    s.sent.sort((a, b) => compareKeys(a.key, b.key));
  };

  const schedule = () => {
    timer = setTimeout(() => void poll(), pollMs);
    timer.unref?.();
  };

  const poll = async () => {
    timer = undefined;
    const s = state;
    if (!s) return;
    try {
      await tick(s);
      if (failures > 0) log(`${name} stream: polling recovered after ${failures} failed reads`);
      failures = 0;
    } catch (error) {
      // Logged once per outage; clients keep their connection (and heartbeats) meanwhile.
      if (failures++ === 0) log(`${name} stream: polling failed, retrying every ${pollMs} ms`, error);
    }
    if (state === s) schedule();
  };

  const stop = () => {
    clearTimeout(timer);
    timer = undefined;
    state = undefined;
  };

  /** The first subscriber starts the poller from the newest events, remembering the unfinalized ones. */
  const start = (): Promise<State<D>> => {
    if (state) return Promise.resolve(state);
    starting ??= read("the newest events", () => source.newest(rememberMax))
      .then((rows) => {
        const s: State<D> = { cursor: rows.at(-1)?.key ?? null, sent: rows, head: rows.at(-1)?.key[0] ?? 0 };
        prune(s);
        if (listeners.size > 0) {
          state = s;
          schedule();
        }
        return s;
      })
      .finally(() => {
        starting = undefined;
      });
    return starting;
  };

  return {
    subscribe(listener) {
      listeners.add(listener);
      // Captured now: a message published after this call reaches the listener.
      const position = state ? Promise.resolve(state.cursor) : start().then((s) => s.cursor);
      position.catch(() => {});
      return {
        position,
        close() {
          if (listeners.delete(listener) && listeners.size === 0) stop();
        },
      };
    },
    async find(key) {
      const [event] = await read("an event", () => source.after(keyBefore(key), 1));
      return event && compareKeys(event.key, key) === 0 ? event : undefined;
    },
    read,
    get subscribers() {
      return listeners.size;
    },
  };
}
