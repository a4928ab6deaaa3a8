import type { NatsConnection, Subscription } from "nats";
import { natsSubjects } from "./nats.ts";

/**
 * Revoked API keys reach the gateways, whose /ws logins made with them must end as the
 * exchange's own do (4001 "API key revoked").
 *
 * Push: after each revocation the exchange publishes `{"publicKey"}` on `<prefix>.keys.revoked`;
 * a gateway closes its logins with that key on receipt.
 *
 * Re-check: core NATS keeps nothing for whoever is away. A gateway that loses NATS closes all its
 * clients anyway (nats.ts), but a push can still be lost: the exchange was away from NATS, or
 * stopped between the revocation and its publish. So every CHECK_MS a gateway asks
 * `<prefix>.keys.check` (request and reply, `{"keys":[…]}` in chunks, one round at a time) which of
 * the keys its clients logged in with are no longer live, and closes those. A round nobody answers
 * changes nothing: the next one asks again. A missed push is thus acted on within CHECK_MS plus
 * one request timeout of the exchange being reachable again.
 *
 * A LOGIN the exchange verified just before a revocation can be answered to the gateway after the
 * push arrived: keys pushed in the last RECENT_MS are remembered (at most MAX_RECENT) and such a
 * LOGIN refused (`wasRevoked`).
 *
 * NATS is trusted like the streams it carries: whoever can publish there can end logins.
 */

/** How often a gateway asks which of its logins' keys are still live. */
export const CHECK_MS = 15_000;
/** How long a pushed revocation refuses LOGINs whose verification was already under way. */
const RECENT_MS = 60_000;
const MAX_RECENT = 10_000;
/** Keys per check request (public keys are at most 256 characters: far below NATS's 1 MB). */
const CHECK_CHUNK = 500;
const MAX_PUBLIC_KEY_LENGTH = 256;

const isKey = (value: unknown): value is string =>
  typeof value === "string" && value.length > 0 && value.length <= MAX_PUBLIC_KEY_LENGTH;

function parseField(text: string, field: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[field] : undefined;
  } catch {
    return undefined;
  }
}

function parseKeys(text: string, field: string): string[] | undefined {
  const keys = parseField(text, field);
  return Array.isArray(keys) && keys.length <= CHECK_CHUNK && keys.every(isKey) ? keys : undefined;
}

export interface PublishRevocationsOptions {
  readonly subjectPrefix?: string;
  /** Registers the listener called after each revocation (Exchange.onKeyRevoked). */
  readonly onKeyRevoked: (listener: (publicKey: string) => void) => void;
  /** Whether a key is live (known and not revoked). */
  readonly isLive: (publicKey: string) => boolean;
}

/** The exchange's side: pushes each revocation and answers the gateways' checks. */
export function publishRevocations(nc: NatsConnection, options: PublishRevocationsOptions): Subscription {
  const subjects = natsSubjects(options.subjectPrefix);
  options.onKeyRevoked((publicKey) => {
    // While NATS is away the client buffers it; if that is lost too, the gateways' checks find it.
    if (!nc.isClosed()) nc.publish(subjects.revoked, JSON.stringify({ publicKey }));
  });
  return nc.subscribe(subjects.checkKeys, {
    callback: (error, message) => {
      if (error !== null || !message.reply) return;
      const keys = parseKeys(message.string(), "keys");
      if (keys === undefined) return;
      message.respond(JSON.stringify({ revoked: keys.filter((key) => !options.isLive(key)) }));
    },
  });
}

export interface WatchRevocationsOptions {
  readonly subjectPrefix?: string;
  /** The keys of the logins served here (StreamServer.loginKeys). */
  readonly loginKeys: () => Iterable<string>;
  /** Ends the logins made with a revoked key (StreamServer.closeLogins). */
  readonly revoke: (publicKey: string) => void;
  readonly checkMs?: number;
  readonly timeoutMs?: number;
  readonly log?: (message: string) => void;
  readonly now?: () => number;
}

export interface RevocationWatch {
  /** Whether a push named the key lately: a LOGIN verified before it is refused. */
  wasRevoked(publicKey: string): boolean;
  /** One re-check round now (the timer runs them every checkMs). */
  check(): Promise<void>;
  close(): void;
}

/** A gateway's side: ends logins on each pushed revocation, and re-checks its logins' keys. */
export function watchRevocations(nc: NatsConnection, options: WatchRevocationsOptions): RevocationWatch {
  const subjects = natsSubjects(options.subjectPrefix);
  const now = options.now ?? Date.now;
  /** Pushed keys by when they were heard, oldest first. */
  const recent = new Map<string, number>();
  const forgetOld = () => {
    const horizon = now() - RECENT_MS;
    for (const [key, at] of recent) {
      if (at > horizon && recent.size <= MAX_RECENT) break;
      recent.delete(key);
    }
  };
  const subscription = nc.subscribe(subjects.revoked, {
    callback: (error, message) => {
      if (error !== null) return;
      const publicKey = parseField(message.string(), "publicKey");
      if (!isKey(publicKey)) return;
      recent.delete(publicKey);
      recent.set(publicKey, now());
      forgetOld();
      options.revoke(publicKey);
    },
  });

  let failing = false;
  const check = async () => {
    const keys = [...new Set(options.loginKeys())];
    for (let i = 0; i < keys.length; i += CHECK_CHUNK) {
      const asked = keys.slice(i, i + CHECK_CHUNK);
      const answer = await nc.request(subjects.checkKeys, JSON.stringify({ keys: asked }), {
        timeout: options.timeoutMs ?? 5_000,
      });
      const revoked = parseKeys(answer.string(), "revoked");
      if (revoked === undefined) throw new Error("the exchange's answer to a key check is malformed");
      // Only keys asked about: an answer cannot end other logins.
      const askedSet = new Set(asked);
      for (const key of revoked) if (askedSet.has(key)) options.revoke(key);
    }
  };
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const schedule = () => {
    if (closed) return;
    timer = setTimeout(async () => {
      try {
        await check();
        if (failing) options.log?.("gateway: revoked keys are checked again");
        failing = false;
      } catch (error) {
        // Once per streak: an exchange that is down would otherwise log every round.
        if (!failing) options.log?.(`gateway: revoked keys not checked (${(error as Error).message}); retrying`);
        failing = true;
      }
      schedule();
    }, options.checkMs ?? CHECK_MS);
    timer.unref();
  };
  schedule();
  void nc.closed().then(() => clearTimeout(timer));

  return {
    wasRevoked: (publicKey) => {
      const at = recent.get(publicKey);
      return at !== undefined && at > now() - RECENT_MS;
    },
    check,
    close: () => {
      closed = true;
      clearTimeout(timer);
      if (!nc.isClosed()) subscription.unsubscribe();
    },
  };
}
