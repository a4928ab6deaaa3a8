/**
 * One meaning of "unavailable" for every service: something a request needs (a database, the
 * relayer, a chain node) cannot serve now. Nothing of the request was done, or its outcome is
 * recovered later; the HTTP side answers it 503 UNAVAILABLE in one place (the exchange's
 * exchange/adapters/http/domain-errors.ts, the ecosystem writes' api/writes/http/statuses.ts),
 * and anything else thrown is a bug.
 */
export class UnavailableError extends Error {
  /** What cannot serve: "exchange database", "journal database" (lib/db), "relayer". */
  readonly dependency: string;
  /**
   * true when the connection itself failed (lost, refused, no answer at all): the exchange then
   * stops taking writes and recovers. false when the dependency answered but refused this request
   * for now (a statement_timeout, too many connections, a balance too low), or every pooled
   * connection was busy for the whole connect timeout (a read burst): only this request fails.
   */
  readonly connectionLost: boolean;
  /** When to try again, if the dependency says (Retry-After); the HTTP side's default otherwise. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    dependency: string,
    message: string,
    options?: { cause?: unknown; connectionLost?: boolean; retryAfterSeconds?: number },
  ) {
    super(message, options);
    this.name = "UnavailableError";
    this.dependency = dependency;
    this.connectionLost = options?.connectionLost ?? true;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}
