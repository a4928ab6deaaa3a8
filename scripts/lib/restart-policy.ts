/**
 * When `npm start` restarts a service that exited on its own, and when it stops trying: the pure
 * core of the supervisor. A crash waits `firstDelayMs`, doubling with each crash in a row up to
 * `maxDelayMs`, so a service whose dependency is briefly away is not hammered; a service that
 * stayed up `stableMs` starts the doubling over. Like systemd's StartLimitBurst, `maxCrashes`
 * crashes within `windowMs` mean the service cannot run here: it is given up on, reported, and
 * the others keep running.
 */
export interface RestartPolicy {
  firstDelayMs: number;
  maxDelayMs: number;
  /** This many crashes within `windowMs` (this one included) and the service is given up on. */
  maxCrashes: number;
  windowMs: number;
  /** Up at least this long before it crashed, and its next restart waits `firstDelayMs` again. */
  stableMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  firstDelayMs: 500,
  maxDelayMs: 15_000,
  maxCrashes: 5,
  windowMs: 10 * 60_000,
  stableMs: 60_000,
};

/** A service's crash record: the times of its recent crashes and how many came in a row. */
export interface CrashHistory {
  readonly crashes: readonly number[];
  readonly streak: number;
}

export const NO_CRASHES: CrashHistory = { crashes: [], streak: 0 };

export type CrashDecision =
  | { restart: true; delayMs: number; crashesInWindow: number; history: CrashHistory }
  | { restart: false; crashesInWindow: number; history: CrashHistory };

/** What to do about a service that started at `startedAt` and exited on its own at `now`. */
export function decideOnCrash(
  policy: RestartPolicy,
  history: CrashHistory,
  startedAt: number,
  now: number,
): CrashDecision {
  const crashes = [...history.crashes.filter((at) => at > now - policy.windowMs), now];
  const streak = now - startedAt >= policy.stableMs ? 1 : history.streak + 1;
  const next: CrashHistory = { crashes, streak };
  if (crashes.length >= policy.maxCrashes) return { restart: false, crashesInWindow: crashes.length, history: next };
  // 2 ** (streak - 1) is exact up to 2 ** 1023; the cap is reached long before.
  const delayMs = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.min(streak - 1, 30));
  return { restart: true, delayMs, crashesInWindow: crashes.length, history: next };
}
