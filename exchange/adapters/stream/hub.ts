/**
 * Who listens to which stream, and the fan-out: each envelope is serialised once and handed to
 * every subscriber as the same text. Transport-agnostic: the WebSocket server (and a gateway fed
 * from NATS) register subscribers; the market feed (or NATS) publishes.
 */

export interface Subscriber {
  /** Queues one message; returns false when the subscriber fell behind and was let go. */
  deliver(text: string): boolean;
}

export interface HubHooks {
  /** A stream got its first subscriber here (a gateway then subscribes to it on NATS). */
  readonly onFirst?: (stream: string) => void;
  /** A stream lost its last subscriber here. */
  readonly onLast?: (stream: string) => void;
}

export class Hub {
  private readonly byStream = new Map<string, Set<Subscriber>>();
  private readonly hooks: HubHooks;

  constructor(hooks: HubHooks = {}) {
    this.hooks = hooks;
  }

  subscribe(stream: string, subscriber: Subscriber): void {
    let set = this.byStream.get(stream);
    if (set === undefined) {
      set = new Set();
      this.byStream.set(stream, set);
      this.hooks.onFirst?.(stream);
    }
    set.add(subscriber);
  }

  unsubscribe(stream: string, subscriber: Subscriber): void {
    const set = this.byStream.get(stream);
    if (set === undefined || !set.delete(subscriber)) return;
    if (set.size === 0) {
      this.byStream.delete(stream);
      this.hooks.onLast?.(stream);
    }
  }

  /** Every subscriber of every stream (a gateway closes them all when NATS drops). */
  *subscribers(): Iterable<Subscriber> {
    const seen = new Set<Subscriber>();
    for (const set of this.byStream.values())
      for (const subscriber of set) {
        if (seen.has(subscriber)) continue;
        seen.add(subscriber);
        yield subscriber;
      }
  }

  /** Whether anyone listens: the feed skips building what nobody would receive. */
  has(stream: string): boolean {
    return this.byStream.has(stream);
  }

  /**
   * Sends `data` on `stream` as `{"stream","data"}`; `as` renames the stream for clients (a user
   * stream is `user:<id>` inside and `user` on the wire). Returns how many received it.
   */
  publish(stream: string, data: unknown, as = stream): number {
    const set = this.byStream.get(stream);
    if (set === undefined) return 0;
    return this.publishText(stream, JSON.stringify({ stream: as, data }));
  }

  /** Delivers an already serialised envelope (a gateway relays NATS messages as they are). */
  publishText(stream: string, text: string): number {
    const set = this.byStream.get(stream);
    if (set === undefined) return 0;
    let delivered = 0;
    // A Set may lose members while iterated (a slow subscriber let go): the rest are still visited.
    for (const subscriber of set) if (subscriber.deliver(text)) delivered++;
    return delivered;
  }

  subscriberCount(): number {
    let count = 0;
    for (const set of this.byStream.values()) count += set.size;
    return count;
  }
}
