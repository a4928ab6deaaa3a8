import { createConnectionSlots } from "../../lib/connection-slots.ts";
import { ApiError, rateLimited } from "../../lib/http/index.ts";

export interface ConnectionLimits {
  /** Open streams per client IP (both streams together). */
  perIp: number;
  /** Open streams in all, per API process. */
  total: number;
}

/** Seconds a refused client is told to wait: streams end only when a client leaves. */
const RETRY_AFTER_SECONDS = 10;

/** The streams' places (lib/connection-slots.ts), a refusal thrown as 429 (this IP) or 503 (the process). */
export function createConnectionGuard(limits: ConnectionLimits) {
  const slots = createConnectionSlots(limits);
  return {
    /** Takes a place for `ip`, or throws 429 (this IP) / 503 (the process); the result gives it back, once. */
    acquire(ip: string): () => void {
      const grant = slots.acquire(ip);
      if (grant.ok) return grant.release;
      if (grant.refused === "ip")
        throw rateLimited(
          RETRY_AFTER_SECONDS,
          `At most ${limits.perIp} open streams per client; close one or retry in ${RETRY_AFTER_SECONDS} s`,
        );
      throw new ApiError(503, "UNAVAILABLE", `The server holds its maximum of ${limits.total} open streams`, {
        "Retry-After": String(RETRY_AFTER_SECONDS),
      });
    },
    get open() {
      return slots.open;
    },
  };
}

export type ConnectionGuard = ReturnType<typeof createConnectionGuard>;
