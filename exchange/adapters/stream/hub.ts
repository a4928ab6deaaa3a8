/**
 * Who listens to which stream, and the fan-out. Envelopes published close together are delivered
 * together: each is encoded once (a WebSocket frame), and every subscriber gets, in one write,
 * the frames of its streams in publishing order; subscribers of the same streams share that
 * buffer. One write per subscriber per flush instead of one per event: 2,000 clients of a pair at
 * 1,000 orders/s are ~1.3M events/s, far beyond one thread, but a few hundred flushes/s.
 * Transport-agnostic: the WebSocket server (and a gateway fed from NATS) register subscribers.
 */

export interface Subscriber {
  /**
   * Takes the encoded messages of one flush (already in order); returns false when the
   * subscriber fell behind and was let go.
   */
  deliver(bytes: Buffer): boolean;
}

/** A stream's name on the wire: a user's own stream (`user:<id>` inside) is `user` to its client. */
export const wireName = (stream: string) => (stream.startsWith("user:") ? "user" : stream);

/** An event as sent: `{"stream","data"}` under the stream's wire name. */
export const envelopeText = (stream: string, data: unknown) => JSON.stringify({ stream: wireName(stream), data });

export interface HubOptions {
  /** Encodes one serialised envelope as sent (a WebSocket text frame); UTF-8 bytes by default. */
  readonly encode?: (text: string) => Buffer;
  /** Most ms an envelope waits for others to share its flush (0: the next turn of the event loop). */
  readonly flushMs?: number;
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
  private readonly encode: (text: string) => Buffer;
  private readonly flushMs: number;
  private pending: { stream: string; text: string }[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(hooks: HubHooks = {}, { encode = (text) => Buffer.from(text), flushMs = 0 }: HubOptions = {}) {
    this.hooks = hooks;
    this.encode = encode;
    this.flushMs = flushMs;
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

  /** Whether anyone listens: the feed skips building what nobody would receive. */
  has(stream: string): boolean {
    return this.byStream.has(stream);
  }

  /** Sends `data` on `stream` as `{"stream","data"}`, under the stream's wire name. */
  publish(stream: string, data: unknown): void {
    if (this.byStream.has(stream)) this.publishText(stream, envelopeText(stream, data));
  }

  /** Queues an already serialised envelope for the next flush (a gateway relays NATS messages as they are). */
  publishText(stream: string, text: string): void {
    if (!this.byStream.has(stream)) return;
    this.pending.push({ stream, text });
    this.timer ??= setTimeout(() => this.flush(), this.flushMs);
  }

  /** Delivers what is queued; returns how many subscribers received something. */
  flush(): number {
    clearTimeout(this.timer);
    this.timer = undefined;
    const pending = this.pending;
    this.pending = [];
    const frames: (Buffer | undefined)[] = new Array(pending.length);
    const wanted = new Map<Subscriber, number[]>();
    for (const [i, { stream }] of pending.entries())
      for (const subscriber of this.byStream.get(stream) ?? []) {
        let list = wanted.get(subscriber);
        if (list === undefined) {
          list = [];
          wanted.set(subscriber, list);
        }
        list.push(i);
      }
    const shared = new Map<string, Buffer>();
    let delivered = 0;
    for (const [subscriber, list] of wanted) {
      const key = list.join(",");
      let bytes = shared.get(key);
      if (bytes === undefined) {
        for (const i of list) frames[i] ??= this.encode(pending[i]!.text);
        bytes = list.length === 1 ? frames[list[0]!]! : Buffer.concat(list.map((i) => frames[i]!));
        shared.set(key, bytes);
      }
      if (subscriber.deliver(bytes)) delivered++;
    }
    return delivered;
  }

  subscriberCount(): number {
    let count = 0;
    for (const set of this.byStream.values()) count += set.size;
    return count;
  }
}
