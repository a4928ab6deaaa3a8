import { isIPv6 } from "node:net";
import type { Context } from "hono";

export interface ClientIpOptions {
  /** Honour X-Forwarded-For (only behind a proxy you run, which sets it). */
  trustProxy: boolean;
}

/**
 * The client of a request as every per-IP limit counts it (the request quota, the stream slots,
 * failed authentications): ipKey of its address. By default the address is the TCP peer, which a
 * client cannot forge. Behind one trusted proxy, it is the last X-Forwarded-For entry, the address
 * that proxy saw; the entries before it are whatever the client sent, so they are never used.
 */
export function clientIp(c: Context, options: ClientIpOptions): string {
  return clientIpOf(c.req.header("x-forwarded-for"), peerAddress(c), options);
}

/** clientIp of a plain Node request (a WebSocket upgrade, which no Hono context sees). */
export function clientIpOfRequest(
  request: { headers: Record<string, string | string[] | undefined>; socket: { remoteAddress?: string } },
  options: ClientIpOptions,
): string {
  const forwarded = request.headers["x-forwarded-for"];
  return clientIpOf(Array.isArray(forwarded) ? forwarded.join(",") : forwarded, request.socket.remoteAddress, options);
}

function clientIpOf(forwarded: string | undefined, peer: string | undefined, { trustProxy }: ClientIpOptions) {
  if (trustProxy) {
    const last = forwarded
      ?.split(",")
      .map((part) => part.trim())
      .filter(Boolean)
      .at(-1);
    if (last) return ipKey(last);
  }
  return ipKey(peer ?? "unknown");
}

/** @hono/node-server passes the Node request as env.incoming. */
function peerAddress(c: Context): string | undefined {
  const env: unknown = c.env;
  if (typeof env !== "object" || env === null || !("incoming" in env)) return undefined;
  const incoming = env.incoming as { socket?: { remoteAddress?: string } } | undefined;
  return incoming?.socket?.remoteAddress;
}

/**
 * One key per client for per-IP limits. IPv4 as it is. IPv6 by its /64 prefix, written
 * `2001:db8:1:2::/64` (lower case, no leading zeros, zone id dropped): one subscriber usually
 * holds a whole /64, so keying on the full address would give it 2^64 quotas. An IPv4-mapped
 * address (`::ffff:a.b.c.d`, how a dual-stack socket sees an IPv4 peer) is that IPv4, so one
 * client has one key whichever socket it came through. A key is its own key; text that is no
 * address ("unknown") is kept as it is.
 */
export function ipKey(address: string): string {
  if (!address.includes(":")) return address;
  const groups = ipv6Groups(address.endsWith("::/64") ? address.slice(0, -3) : address);
  if (groups === undefined) return address;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join(".");
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (any valid spelling), or undefined. */
function ipv6Groups(text: string): number[] | undefined {
  const address = text.replace(/%.*$/, "");
  if (!isIPv6(address)) return undefined;
  const [head = "", tail] = address.split("::", 2);
  const parse = (part: string) =>
    part === ""
      ? []
      : part.split(":").flatMap((group) => {
          if (!group.includes(".")) return [Number.parseInt(group, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = group.split(".").map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const left = parse(head);
  if (tail === undefined) return left;
  const right = parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}
