// Replay protection for timestamped signatures: each one is accepted once. A signature carrying
// API-Timestamp T verifies only while |now - T| <= window, so it needs remembering until
// T + window and no longer; the cache is therefore bounded by the signed traffic of one window.
// It lives in the one process that answers signed requests (see exchange/README.md): the
// ecosystem API verifies through this process's /internal/verify-signature, so it shares it.
// A restart empties it, so timestamps the previous process could have accepted (up to its end +
// the accepted future skew, see verify.ts) are refused outright: nothing accepted before a restart
// can be replayed after it.

export type ClaimResult = "claimed" | "replay" | "full";

export interface ReplayGuard {
  /** Epoch ms this process started; an API-Timestamp before it + the accepted future skew is refused. */
  readonly startedAt: number;
  /**
   * Records `signature` as used until `expiresAt` (epoch ms). "replay" when it already was;
   * "full" when the cache holds `maxEntries` unexpired signatures (nothing unexpired is evicted,
   * since that would reopen a replay).
   */
  claim(signature: string, expiresAt: number, now: number): ClaimResult;
  /** Whole seconds until the earliest entry expires (at least 1): Retry-After of a "full" refusal. */
  retryAfterSeconds(now: number): number;
  size(): number;
}

export interface ReplayGuardOptions {
  readonly startedAt: number;
  /** Default 500 000 (about 60 MB): 4 000 timestamped requests/s for a 2 x 30 s lifetime, doubled. */
  readonly maxEntries?: number;
}

export const DEFAULT_REPLAY_CACHE_ENTRIES = 500_000;

/**
 * Entries are filed by the second they expire in; a sweep drops whole seconds that have passed,
 * so a claim costs O(1) plus the entries it expires, and memory follows the live signatures.
 */
export function createReplayGuard(options: ReplayGuardOptions): ReplayGuard {
  const maxEntries = options.maxEntries ?? DEFAULT_REPLAY_CACHE_ENTRIES;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new Error("maxEntries must be a positive integer");
  const seen = new Set<string>();
  const bySecond = new Map<number, string[]>();
  /** Every second before this one has been swept. */
  let sweptTo = Math.floor(options.startedAt / 1000);

  const sweep = (now: number) => {
    const current = Math.floor(now / 1000);
    if (seen.size === 0) {
      sweptTo = Math.max(sweptTo, current);
      return;
    }
    // A second is swept once it has fully passed: every entry filed under it has expired.
    for (; sweptTo < current; sweptTo++) {
      const expired = bySecond.get(sweptTo);
      if (expired === undefined) continue;
      for (const signature of expired) seen.delete(signature);
      bySecond.delete(sweptTo);
    }
  };

  return {
    startedAt: options.startedAt,
    claim(signature, expiresAt, now) {
      sweep(now);
      if (seen.has(signature)) return "replay";
      if (seen.size >= maxEntries) return "full";
      seen.add(signature);
      const second = Math.max(Math.floor(expiresAt / 1000), sweptTo);
      const list = bySecond.get(second);
      if (list === undefined) bySecond.set(second, [signature]);
      else list.push(signature);
      return "claimed";
    },
    retryAfterSeconds(now) {
      let earliest = Infinity;
      for (const second of bySecond.keys()) if (second < earliest) earliest = second;
      return earliest === Infinity ? 1 : Math.max(1, earliest + 1 - Math.floor(now / 1000));
    },
    size: () => seen.size,
  };
}
