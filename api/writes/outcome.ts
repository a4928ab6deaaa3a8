/**
 * What a relayed write comes to, as a value: done (the body of its answer) or rejected with one
 * of SPEC.md's stable codes (or ours, where SPEC.md is silent) and a message. The saga
 * (service.ts) and the adapters it calls out through (chain.ts, exchange-client.ts, revert.ts)
 * speak only in these; which HTTP status a code is answered with is the HTTP adapter's business
 * (statuses.ts), and nothing here knows it. Thrown are only bugs and UnavailableError (a
 * dependency cannot serve now: lib/unavailable.ts).
 */

/** What cannot serve (UnavailableError's dependency) while the writes do not: not configured, starting, restarting. */
export const SIGNED_WRITES = "signed writes";

/** Every code a write can be rejected with. */
export const WRITE_CODES = [
  // The caller or the request.
  "LEVEL_TOO_LOW",
  "NO_CHAIN_ADDRESS",
  "RATE_LIMITED",
  "INVALID_PARAM",
  "NOT_FOUND",
  // The contracts' rules (a revert, decoded; revert.ts).
  "INVALID_SYMBOL",
  "SYMBOL_TAKEN",
  "COOLDOWN_ACTIVE",
  "INSUFFICIENT_FEE",
  "NO_HOLDINGS",
  "PROPOSAL_NOT_FOUND",
  "ALREADY_VOTED",
  "PROPOSAL_CLOSED",
  "VOTING_NOT_STARTED",
  "NOT_TOKEN_OWNER",
  // A mined transaction that reverted for no known reason.
  "SPAWNER_FAILED",
  "INTERNAL",
  // The exchange refused a fee hold for a reason of its own (exchange/README.md).
  "UNKNOWN_CURRENCY",
  "HOLD_CONFLICT",
  // The Idempotency-Key.
  "IDEMPOTENCY_KEY_REUSED",
  "REQUEST_IN_PROGRESS",
  // Sent, or maybe sent, and its outcome not known yet: a retry with the same key answers it.
  "TX_PENDING",
  "WRITE_PENDING",
] as const;

export type WriteCode = (typeof WRITE_CODES)[number];

export interface Rejection {
  readonly ok: false;
  readonly code: WriteCode;
  readonly message: string;
  /** When a retry may succeed, if the rejection knows (a rate limit's reset). */
  readonly retryAfterSeconds?: number;
}

export interface Done {
  readonly ok: true;
  /** The answer's body (SPEC.md's spawn, vote or proposal). */
  readonly value: unknown;
}

export type WriteOutcome = Done | Rejection;

export const done = (value: unknown): Done => ({ ok: true, value });

export const rejection = (code: WriteCode, message: string, retryAfterSeconds?: number): Rejection =>
  retryAfterSeconds === undefined ? { ok: false, code, message } : { ok: false, code, message, retryAfterSeconds };

export const isRejection = (value: unknown): value is Rejection =>
  typeof value === "object" && value !== null && (value as { ok?: unknown }).ok === false;

const CODES: ReadonlySet<string> = new Set(WRITE_CODES);

export const isWriteCode = (code: unknown): code is WriteCode => typeof code === "string" && CODES.has(code);

/**
 * A finished write's outcome as the relayer's journal keeps it (answer_body, with answer_status
 * left null), for an Idempotency-Key retry to get again.
 */
export function journalledOutcome(outcome: WriteOutcome): string {
  return JSON.stringify(
    outcome.ok ? { ok: true, value: outcome.value } : { ok: false, code: outcome.code, message: outcome.message },
  );
}

/**
 * A finished write's outcome read back from the journal. Rows journalled by earlier releases,
 * before outcomes were, hold the HTTP answer: a status and its body, `{code, message}` for a
 * rejection. Their statuses are the ones the same codes are answered with now, so the outcome
 * they stand for answers the same status and body again.
 */
export function outcomeOfJournal(answerStatus: number | null, answerBody: string): WriteOutcome {
  const body = JSON.parse(answerBody) as unknown;
  if (answerStatus === null) {
    const kept = body as { ok: boolean; value?: unknown; code?: unknown; message?: unknown };
    if (kept.ok) return done(kept.value);
    return rejection(codeOf(kept.code), String(kept.message));
  }
  if (answerStatus < 400) return done(body);
  const error = body as { code?: unknown; message?: unknown };
  return rejection(codeOf(error.code), String(error.message));
}

function codeOf(code: unknown): WriteCode {
  if (!isWriteCode(code)) throw new Error(`journalled write answer has an unknown code ${String(code)}`);
  return code;
}
