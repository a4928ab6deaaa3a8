import { describe, expect, it } from "vitest";
import { WS_TICKET_TTL_MS, WsTickets } from "./ws-tickets.ts";

describe("WsTickets", () => {
  it("redeems a ticket once, for its user", () => {
    const tickets = new WsTickets();
    const { ticket } = tickets.issue("user-1", "session-1");
    expect(tickets.redeem(ticket)).toEqual({ userId: "user-1", session: "session-1" });
    expect(tickets.redeem(ticket)).toBeUndefined();
    expect(tickets.redeem("not-a-ticket")).toBeUndefined();
  });
  it("refuses an expired ticket", () => {
    let now = 1_000;
    const tickets = new WsTickets(() => now);
    const { ticket, expiresAt } = tickets.issue("user-1", "session-1");
    expect(expiresAt).toBe(1_000 + WS_TICKET_TTL_MS);
    now += WS_TICKET_TTL_MS;
    expect(tickets.redeem(ticket)).toBeUndefined();
  });
});
