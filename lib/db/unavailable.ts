// The database being away (unreachable, timed out, restarting) is an expected condition that
// callers answer with 503 and recover from; anything else a query throws is a bug.
import { UnavailableError } from "../unavailable.ts";

/** The dependency of every database error of lib/db/sql.ts (the relayer's journal, the agents'); its message names which database (OpenSqlOptions.name). */
export const JOURNAL = "journal database";

/** SQLSTATE classes that mean "the server cannot serve now", not "the statement is wrong". */
const UNAVAILABLE_STATES = [/^08/, /^53/, /^57P0[1-3]$/, /^57014$/];

/**
 * The server's own errors carry a severity and a SQLSTATE: only a few classes mean it cannot serve
 * now. Without them the error is the client's: a socket error (ECONNRESET, ...) or pg's and
 * PGlite's own words for a lost, refused or timed-out connection. Anything else is a bug.
 */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof UnavailableError) return true;
  if (!(error instanceof Error)) return false;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  if (typeof severity === "string" && typeof code === "string")
    return UNAVAILABLE_STATES.some((state) => state.test(code));
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return true;
  return /connect|connection|timeout|timed out|terminat|closed/i.test(error.message);
}

/**
 * pg-pool's refusal when no pooled connection came free within connectionTimeoutMillis: the pool
 * is busy, nothing is lost (a connection that fails to open says "Connection terminated ..."
 * instead). It has no code, so its words are all there is to tell it by.
 */
export function isPoolCheckoutTimeout(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as { code?: unknown }).code === undefined &&
    error.message === "timeout exceeded when trying to connect"
  );
}

/**
 * `error` as an UnavailableError of `dependency` when it means the database is away, else
 * unchanged. Its message starts with `prefix`.
 */
export function asUnavailable(
  error: unknown,
  dependency = "exchange database",
  prefix = "The database is unavailable: ",
): unknown {
  if (error instanceof UnavailableError || !isUnavailable(error)) return error;
  return unavailable(error, dependency, prefix);
}

/**
 * `reason` (an error, or words) as an UnavailableError of `dependency` whatever it is: for what
 * only a database away can cause (no answer in time, its thread gone, a connection that never
 * opened). An UnavailableError is returned unchanged. Its message starts with `prefix`.
 */
export function unavailable(reason: unknown, dependency: string, prefix: string): UnavailableError {
  if (reason instanceof UnavailableError) return reason;
  if (!(reason instanceof Error)) return new UnavailableError(dependency, `${prefix}${String(reason)}`);
  const code =
    (reason as { code?: unknown; severity?: unknown }).severity === undefined
      ? undefined
      : (reason as { code?: unknown }).code;
  const answered =
    (typeof code === "string" && (code === "57014" || code.startsWith("53"))) || isPoolCheckoutTimeout(reason);
  return new UnavailableError(dependency, `${prefix}${reason.message}`, {
    cause: reason,
    connectionLost: !answered,
  });
}
