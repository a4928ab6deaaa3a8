import type { Context } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";
import { ApiError } from "../../lib/http/index.ts";
import { ClientQueue } from "./client-queue.ts";
import type { ConnectionGuard } from "./connection-guard.ts";
import type { ChainKey } from "./event-id.ts";
import type { FeedEvent } from "./feed-event.ts";
import type { Feed, FeedMessage, Subscription } from "./feed.ts";
import { LiveFilter, type Outgoing, resume, resync } from "./resume.ts";

/** One client's stream: which feed, which of its events, and where the client left off. */
export interface StreamPlan<D> {
  feed: Feed<D>;
  /** The client's filters on a live event (the same as `replay` applies in SQL). */
  matches(event: FeedEvent<D>): boolean;
  /** The newest `limit` events matching the filters in (after, upTo], in chain order. */
  replay(after: ChainKey, upTo: ChainKey, limit: number): Promise<FeedEvent<D>[]>;
  /** The id the client last received (Last-Event-ID header, else ?lastEventId). */
  lastEventId?: string;
}

export interface SessionOptions {
  guard: ConnectionGuard;
  clientIp: string;
  /** Messages one client may fall behind before it is sent `resync` and closed. */
  queueMax: number;
  /** Most events a reconnecting client is replayed. */
  replayMax: number;
  /** A `: ping` comment after this long without a message, so proxies keep the connection. */
  heartbeatMs: number;
  /** The reconnection delay suggested to EventSource clients (`retry:`). */
  retryMs: number;
  log?: (message: string, error?: unknown) => void;
}

/** After `resync` to a slow client, the most ms its connection may take to drain before it is cut. */
const SLOW_CLIENT_GRACE_MS = 5_000;

/**
 * Serves one client: takes a connection place, subscribes to the feed (before the catch-up is
 * read, so nothing falls between the two), answers 503 if the database does not answer, then
 * streams: `retry:`, the catch-up, then live messages with heartbeats, until the client leaves.
 */
export async function openStream<D>(c: Context, plan: StreamPlan<D>, options: SessionOptions): Promise<Response> {
  const release = options.guard.acquire(options.clientIp);
  let subscription: Subscription | undefined;
  let dropSlowClient = () => {};
  let grace: NodeJS.Timeout | undefined;
  const queue = new ClientQueue<FeedMessage<D>>(options.queueMax, () => {
    // Nothing more is queued for it; if even the notice cannot be written, the connection goes.
    subscription?.close();
    grace = setTimeout(() => dropSlowClient(), SLOW_CLIENT_GRACE_MS);
    grace.unref?.();
  });
  let start: { opening: Outgoing<D>[]; live: LiveFilter<D> };
  try {
    subscription = plan.feed.subscribe((message) => {
      if (plan.matches(message.event)) queue.push(message);
    });
    const position = await subscription.position;
    start = plan.lastEventId
      ? await resume({ ...plan, lastEventId: plan.lastEventId, position, replayMax: options.replayMax })
      : { opening: [], live: new LiveFilter<D>([], null, null) };
  } catch (error) {
    subscription?.close();
    release();
    options.log?.("stream: the database did not answer", error);
    throw new ApiError(503, "UNAVAILABLE", "The indexed database did not answer; retry shortly", {
      "Retry-After": "5",
    });
  }
  const sub = subscription;
  // A reverse proxy that buffers answers (nginx does by default) would hold events back.
  c.header("X-Accel-Buffering", "no");
  return streamSSE(c, async (stream) => {
    let closed = false;
    const end = () => {
      closed = true;
      queue.wake();
    };
    stream.onAbort(end);
    dropSlowClient = () => {
      end();
      stream.abort();
      // The writer may be stuck on a socket that never drains: only destroying it frees it.
      (c.env as { outgoing?: { destroy?: () => void } } | undefined)?.outgoing?.destroy?.();
    };
    try {
      await stream.write(`retry: ${options.retryMs}\n\n`);
      for (const message of start.opening) {
        if (closed) return;
        await send(stream, message);
      }
      while (!closed) {
        if (queue.hasOverflowed) {
          await send(stream, resync("slow_client", { queueMax: options.queueMax }));
          return;
        }
        const message = queue.take();
        if (message !== undefined) {
          if (start.live.pass(message)) await send(stream, message);
        } else if (!(await queue.wait(options.heartbeatMs)) && !closed) {
          await stream.write(": ping\n\n");
        }
      }
    } finally {
      // Ended in time: the socket may serve the client's next request, so it is never cut later.
      clearTimeout(grace);
      sub.close();
      release();
    }
  });
}

async function send<D>(stream: SSEStreamingApi, message: Outgoing<D>): Promise<void> {
  if (message.kind === "event") {
    const { event } = message;
    await stream.writeSSE({ event: event.event, id: event.id, data: JSON.stringify(event.data) });
  } else if (message.kind === "retract") {
    // No `id:` line: the client's Last-Event-ID stays the newest event it received.
    const { id, event } = message.event;
    await stream.writeSSE({ event: "retract", data: JSON.stringify({ id, event }) });
  } else {
    await stream.writeSSE({ event: "resync", data: JSON.stringify({ reason: message.reason, ...message.detail }) });
  }
}
