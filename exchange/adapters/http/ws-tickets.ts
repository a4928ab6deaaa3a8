import { randomBytes } from "node:crypto";

/**
 * One-use tickets that log a web session into the `/ws` user stream. A browser's WebSocket to the
 * exchange does not carry the session cookie (it is scoped to Path=/api), and the page never
 * holds an API key: it asks GET /api/account/ws-ticket (its session) and sends the ticket in a
 * LOGIN. A ticket lives 30 s and is used up by the LOGIN it serves; tickets are kept in memory
 * (a restart drops them, and the page asks for another). A ticket names its session, so the
 * login it makes ends when the session does (sign-out, revocation, expiry).
 */
export const WS_TICKET_TTL_MS = 30_000;
/** Most outstanding tickets: past that, the oldest go (a flood costs only the flooder's tickets). */
const MAX_TICKETS = 10_000;

export class WsTickets {
  private readonly tickets = new Map<string, { userId: string; session: string; expiresAt: number }>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** A ticket for `userId`'s session `session` (its token's hash). */
  issue(userId: string, session: string): { ticket: string; expiresAt: number } {
    const now = this.now();
    for (const [ticket, entry] of this.tickets) {
      if (entry.expiresAt > now && this.tickets.size < MAX_TICKETS) break;
      this.tickets.delete(ticket);
    }
    const ticket = randomBytes(32).toString("base64url");
    const expiresAt = now + WS_TICKET_TTL_MS;
    this.tickets.set(ticket, { userId, session, expiresAt });
    return { ticket, expiresAt };
  }

  /** The ticket's user and session, once: a second redeem, an unknown or an expired ticket is undefined. */
  redeem(ticket: string): { userId: string; session: string } | undefined {
    const entry = this.tickets.get(ticket);
    if (entry === undefined) return undefined;
    this.tickets.delete(ticket);
    return entry.expiresAt > this.now() ? { userId: entry.userId, session: entry.session } : undefined;
  }
}
