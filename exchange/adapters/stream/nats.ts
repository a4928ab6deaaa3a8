import { connect, type NatsConnection, type Subscription } from "nats";
import type { Hub } from "./hub.ts";
import type { ExchangeStreams } from "./streams.ts";

/**
 * Fan-out beyond one process: the exchange publishes every envelope, serialised as clients get
 * it, on the NATS subject of its stream; a gateway subscribes to a stream's subject while one of
 * its clients wants it and hands each message to its own hub unchanged. NATS keeps one
 * publisher's order per subject; a gateway that loses NATS closes its clients (1012), who resync.
 */

const PREFIX = "exchange.stream.";

/** The subject of a stream name (`ETH_USDT@depth`, `!ticker@arr`, `user:<id>`: no dots or wildcards). */
export const subjectOf = (stream: string) => `${PREFIX}${stream}`;

export async function connectNats(url: string, name: string, timeoutMs = 5_000): Promise<NatsConnection> {
  return connect({ servers: url, name, timeout: timeoutMs, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
}

/** The exchange's side: every envelope to NATS; nothing is queued while NATS is away. */
export function publishToNats(streams: ExchangeStreams, nc: NatsConnection): void {
  let up = true;
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === "disconnect") up = false;
      if (status.type === "reconnect") up = true;
    }
  })();
  streams.addSink((stream, text) => {
    if (up && !nc.isClosed()) nc.publish(subjectOf(stream), text);
  });
}

/**
 * A gateway's side: a NATS subscription per stream its clients want. `onLost` runs when NATS
 * drops: messages in between are gone, so clients must resync.
 */
export function relayFromNats(nc: NatsConnection, hub: () => Hub, onLost: () => void) {
  const subscriptions = new Map<string, Subscription>();
  void (async () => {
    for await (const status of nc.status()) if (status.type === "disconnect") onLost();
  })();
  return {
    onFirst(stream: string) {
      const subscription = nc.subscribe(subjectOf(stream), {
        callback: (error, message) => {
          if (error === null) hub().publishText(stream, message.string());
        },
      });
      subscriptions.set(stream, subscription);
    },
    onLast(stream: string) {
      subscriptions.get(stream)?.unsubscribe();
      subscriptions.delete(stream);
    },
  };
}
