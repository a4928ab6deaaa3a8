import { ApiError, rateLimited } from "../../lib/http/index.ts";

export interface ConnectionLimits {
  /** Open streams per client IP (both streams together). */
  perIp: number;
  /** Open streams in all, per API process. */
  total: number;
}

/** Seconds a refused client is told to wait: streams end only when a client leaves. */
const RETRY_AFTER_SECONDS = 10;

/**
 * Counts open streams per client IP and in all. A stream holds a connection and a queue for as
 * long as the client stays, so the number is bounded, not only the request rate.
 */
export function createConnectionGuard(limits: ConnectionLimits) {
  const perIp = new Map<string, number>();
  let open = 0;
  return {
    /** Takes a place for `ip`, or throws 429 (this IP) / 503 (the process); the result gives it back, once. */
    acquire(ip: string): () => void {
      const mine = perIp.get(ip) ?? 0;
      if (mine >= limits.perIp)
        throw rateLimited(
          RETRY_AFTER_SECONDS,
          `At most ${limits.perIp} open streams per client; close one or retry in ${RETRY_AFTER_SECONDS} s`,
        );
      if (open >= limits.total)
        throw new ApiError(503, "UNAVAILABLE", `The server holds its maximum of ${limits.total} open streams`, {
          "Retry-After": String(RETRY_AFTER_SECONDS),
        });
      perIp.set(ip, mine + 1);
      open++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        open--;
        const left = (perIp.get(ip) ?? 1) - 1;
        if (left > 0) perIp.set(ip, left);
        else perIp.delete(ip);
      };
    },
    get open() {
      return open;
    },
  };
}

export type ConnectionGuard = ReturnType<typeof createConnectionGuard>;
