/**
 * Places for long-lived connections (WebSocket, server-sent events): at most `perIp` per client
 * (clientIp's key, lib/http/client-ip.ts: an IPv6 /64 is one client) and `total` in all. A stream holds a socket and a queue for as long as its client stays, so
 * their number is bounded, not only the rate they are opened at. A refusal is a value; each
 * transport answers it its own way.
 */
export interface SlotLimits {
  readonly perIp: number;
  readonly total: number;
}

export type SlotGrant = { ok: true; release: () => void } | { ok: false; refused: "ip" | "total" };

export function createConnectionSlots(limits: SlotLimits) {
  const perIp = new Map<string, number>();
  let open = 0;
  return {
    /** Takes a place for `ip`; `release` gives it back (once, however often it is called). */
    acquire(ip: string): SlotGrant {
      const mine = perIp.get(ip) ?? 0;
      if (mine >= limits.perIp) return { ok: false, refused: "ip" };
      if (open >= limits.total) return { ok: false, refused: "total" };
      perIp.set(ip, mine + 1);
      open++;
      let released = false;
      return {
        ok: true,
        release: () => {
          if (released) return;
          released = true;
          open--;
          const left = (perIp.get(ip) ?? 1) - 1;
          if (left > 0) perIp.set(ip, left);
          else perIp.delete(ip);
        },
      };
    },
    get open() {
      return open;
    },
  };
}
