import { randomUUID } from "node:crypto";
import { connect, type NatsConnection, type Subscription } from "nats";
import type { Hub } from "./hub.ts";
import type { ExchangeStreams } from "./streams.ts";

/**
 * Fan-out beyond one process: the exchange publishes each envelope, serialised as clients get
 * it, on the NATS subject of its stream; a gateway subscribes to a stream's subject while one of
 * its clients wants it and hands each message to its own hub unchanged. NATS keeps one
 * publisher's order per subject; a gateway that loses NATS closes its clients (1012), who resync.
 *
 * Market streams are published always. A user's stream is published only while a gateway serves
 * it: NATS does not tell a publisher who listens, so gateways say so on the interest subjects.
 * Before it answers a LOGIN, a gateway subscribes to the user's subject, then asks the exchange
 * (`want`, request and reply) and waits for its answer: every event the exchange builds after
 * that answer reaches the gateway, so a logged-in client misses nothing. The answer carries the
 * exchange's TTL; a gateway renews all its users three times per TTL (at most every RENEW_MS)
 * and drops a user when its last client of it leaves; what a gateway that died without dropping
 * wanted expires after the TTL. After the exchange starts or gets NATS back it cannot know what
 * gateways want, so it publishes every user stream until one TTL has passed, by when every live
 * gateway has renewed.
 */

/** The subjects' first token unless NATS_SUBJECT_PREFIX names another (one per exchange sharing a NATS). */
export const DEFAULT_SUBJECT_PREFIX = "exchange";
const TTL_MS = 30_000;
/** A gateway's longest renewal interval (shorter when the exchange's TTL asks for it). */
const RENEW_MS = 10_000;
/** User ids per renewal message (about 40 KB, far below NATS's 1 MB payload limit). */
const RENEW_CHUNK = 1_000;

/**
 * The subjects of one exchange: `<prefix>.stream.<name>` per stream (`ETH_USDT@depth`, `!ticker@arr`,
 * `user:<id>`: no dots or wildcards), `<prefix>.interest.want|renew|drop` and
 * `<prefix>.keys.revoked|check` (revocations.ts). Exchanges that share a NATS need different
 * prefixes: their user ids overlap, and one's gateways would steer the other.
 */
export function natsSubjects(prefix = DEFAULT_SUBJECT_PREFIX) {
  return {
    stream: (name: string) => `${prefix}.stream.${name}`,
    want: `${prefix}.interest.want`,
    renew: `${prefix}.interest.renew`,
    drop: `${prefix}.interest.drop`,
    revoked: `${prefix}.keys.revoked`,
    checkKeys: `${prefix}.keys.check`,
  };
}

const USER_PREFIX = "user:";
const isUserStream = (stream: string) => stream.startsWith(USER_PREFIX);

/** What an interest message says: this gateway wants (or no longer wants) these users' streams. */
interface Interest {
  readonly gateway: string;
  readonly users: readonly string[];
}

function parseInterest(text: string): Interest | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null) return undefined;
    const { gateway, users } = value as Record<string, unknown>;
    if (typeof gateway !== "string" || !Array.isArray(users) || !users.every((u) => typeof u === "string"))
      return undefined;
    return { gateway, users };
  } catch {
    return undefined;
  }
}

export async function connectNats(url: string, name: string, timeoutMs = 5_000): Promise<NatsConnection> {
  return connect({ servers: url, name, timeout: timeoutMs, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
}

export interface PublishOptions {
  /** Where the exchange says that NATS went away and came back. */
  readonly log?: (message: string) => void;
  /** First token of every subject (NATS_SUBJECT_PREFIX). */
  readonly subjectPrefix?: string;
  /** How long a gateway's interest in a user lasts unless renewed; also the catch-all period after (re)connecting. */
  readonly ttlMs?: number;
  readonly now?: () => number;
}

/**
 * The users gateways want, each until its gateway's last renewal + ttl. `wants` is true for every
 * user while `everyoneUntil` has not passed (after the exchange (re)connects).
 */
export class UserInterest {
  private readonly byUser = new Map<string, Map<string, number>>();
  private everyoneUntil: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor({ ttlMs = TTL_MS, now = Date.now }: PublishOptions = {}) {
    this.ttlMs = ttlMs;
    this.now = now;
    this.everyoneUntil = now() + ttlMs;
  }

  /** Nothing known of what gateways want (a start, a reconnect): every user until a TTL passes. */
  forget(): void {
    this.everyoneUntil = this.now() + this.ttlMs;
  }

  /** When the catch-all period of the last start or reconnect ends (ms since the epoch). */
  get catchAllUntil(): number {
    return this.everyoneUntil;
  }

  want({ gateway, users }: Interest): void {
    const until = this.now() + this.ttlMs;
    for (const user of users) {
      let gateways = this.byUser.get(user);
      if (gateways === undefined) {
        gateways = new Map();
        this.byUser.set(user, gateways);
      }
      gateways.set(gateway, until);
    }
  }

  drop({ gateway, users }: Interest): void {
    for (const user of users) {
      const gateways = this.byUser.get(user);
      if (gateways?.delete(gateway) && gateways.size === 0) this.byUser.delete(user);
    }
  }

  wants(userId: string): boolean {
    const now = this.now();
    if (now < this.everyoneUntil) return true;
    const gateways = this.byUser.get(userId);
    if (gateways === undefined) return false;
    for (const until of gateways.values()) if (until > now) return true;
    return false;
  }

  /** Forgets what expired; returns how many users are still wanted. */
  sweep(): number {
    const now = this.now();
    for (const [user, gateways] of this.byUser) {
      for (const [gateway, until] of gateways) if (until <= now) gateways.delete(gateway);
      if (gateways.size === 0) this.byUser.delete(user);
    }
    return this.byUser.size;
  }
}

/**
 * The exchange's side: market envelopes to NATS always, a user's while a gateway wants it;
 * nothing is queued while NATS is away. Returns the interest it keeps (for tests and metrics).
 */
export function publishToNats(
  streams: ExchangeStreams,
  nc: NatsConnection,
  options: PublishOptions = {},
): UserInterest {
  const interest = new UserInterest(options);
  const subjects = natsSubjects(options.subjectPrefix);
  const ttlMs = options.ttlMs ?? TTL_MS;
  let up = true;
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === "disconnect") {
        up = false;
        options.log?.("exchange: NATS connection lost; gateways get nothing until it is back");
      }
      if (status.type === "reconnect") {
        up = true;
        // Renewals and drops sent meanwhile were lost.
        interest.forget();
        options.log?.("exchange: NATS is back; every user stream is published for one interest TTL");
      }
    }
  })();
  const on = (subject: string, handle: (interest: Interest) => void) =>
    nc.subscribe(subject, {
      callback: (error, message) => {
        if (error !== null) return;
        const parsed = parseInterest(message.string());
        if (parsed === undefined) return;
        handle(parsed);
        // The answer leaves after the interest is recorded: what is published next reaches the asker.
        if (message.reply) message.respond(JSON.stringify({ ttlMs }));
      },
    });
  on(subjects.want, (wanted) => interest.want(wanted));
  on(subjects.renew, (renewed) => interest.want(renewed));
  on(subjects.drop, (dropped) => interest.drop(dropped));
  const sweep = setInterval(() => interest.sweep(), ttlMs);
  sweep.unref();
  void nc.closed().then(() => clearInterval(sweep));
  streams.addSink({
    wants: (stream) => !isUserStream(stream) || interest.wants(stream.slice(USER_PREFIX.length)),
    send: (stream, text) => {
      if (up && !nc.isClosed()) nc.publish(subjects.stream(stream), text);
    },
  });
  return interest;
}

export interface RelayOptions {
  /** First token of every subject (NATS_SUBJECT_PREFIX): the exchange's. */
  readonly subjectPrefix?: string;
  /** How long a LOGIN waits for the exchange to confirm a user stream. */
  readonly wantTimeoutMs?: number;
}

/**
 * A gateway's side: a NATS subscription per stream its clients want, and its interest in user
 * streams announced to the exchange. `onLost` runs when NATS drops: messages in between are gone,
 * so clients must resync.
 */
export function relayFromNats(nc: NatsConnection, hub: () => Hub, onLost: () => void, options: RelayOptions = {}) {
  const gateway = randomUUID();
  const subjects = natsSubjects(options.subjectPrefix);
  const subscriptions = new Map<string, Subscription>();
  /** Per user stream served here, settled once the exchange confirmed it publishes it. */
  const confirmed = new Map<string, Promise<void>>();
  const announce = (subject: string, users: readonly string[]) => {
    if (!nc.isClosed()) nc.publish(subject, JSON.stringify({ gateway, users } satisfies Interest));
  };
  void (async () => {
    for await (const status of nc.status()) if (status.type === "disconnect") onLost();
  })();
  let renewMs = RENEW_MS;
  let renewal: NodeJS.Timeout | undefined;
  const scheduleRenewal = () => {
    clearTimeout(renewal);
    renewal = setTimeout(() => {
      const users = [...confirmed.keys()].map((stream) => stream.slice(USER_PREFIX.length));
      for (let i = 0; i < users.length; i += RENEW_CHUNK) announce(subjects.renew, users.slice(i, i + RENEW_CHUNK));
      scheduleRenewal();
    }, renewMs);
    renewal.unref();
  };
  scheduleRenewal();
  void nc.closed().then(() => clearTimeout(renewal));
  /** The exchange's answer to `want` names its TTL: renew three times within it. */
  const heard = (answer: string) => {
    let ttlMs: unknown;
    try {
      ttlMs = (JSON.parse(answer) as { ttlMs?: unknown }).ttlMs;
    } catch {
      return;
    }
    if (typeof ttlMs !== "number" || !(ttlMs / 3 < renewMs)) return;
    renewMs = Math.max(10, Math.floor(ttlMs / 3));
    scheduleRenewal();
  };
  return {
    onFirst(stream: string) {
      const subscription = nc.subscribe(subjects.stream(stream), {
        callback: (error, message) => {
          if (error === null) hub().publishText(stream, message.string());
        },
      });
      subscriptions.set(stream, subscription);
      if (!isUserStream(stream)) return;
      // Asked after subscribing: NATS handles one client's subscribe and request in order, so the
      // subscription exists before the exchange hears of the interest.
      const users = [stream.slice(USER_PREFIX.length)];
      const asked = nc
        .request(subjects.want, JSON.stringify({ gateway, users } satisfies Interest), {
          timeout: options.wantTimeoutMs ?? 5_000,
        })
        .then((answer) => heard(answer.string()));
      asked.catch(() => {}); // awaited by ready(); a failure there is the LOGIN's answer
      confirmed.set(stream, asked);
    },
    onLast(stream: string) {
      subscriptions.get(stream)?.unsubscribe();
      subscriptions.delete(stream);
      if (confirmed.delete(stream)) announce(subjects.drop, [stream.slice(USER_PREFIX.length)]);
    },
    /** Settles once the exchange publishes `stream` here (at once for a market stream); rejects if it did not confirm. */
    ready(stream: string): Promise<void> {
      return confirmed.get(stream) ?? Promise.resolve();
    },
  };
}
