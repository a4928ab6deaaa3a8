import type { Context } from "hono";

export interface ClientIpOptions {
  /** Honour X-Forwarded-For (only behind a proxy you run, which sets it). */
  trustProxy: boolean;
}

/**
 * The client's address for rate limiting. By default the TCP peer, which a client cannot forge.
 * Behind one trusted proxy, the last X-Forwarded-For entry is the address that proxy saw; the
 * entries before it are whatever the client sent, so they are never used.
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
    if (last) return normalize(last);
  }
  return normalize(peer ?? "unknown");
}

/** @hono/node-server passes the Node request as env.incoming. */
function peerAddress(c: Context): string | undefined {
  const env: unknown = c.env;
  if (typeof env !== "object" || env === null || !("incoming" in env)) return undefined;
  const incoming = env.incoming as { socket?: { remoteAddress?: string } } | undefined;
  return incoming?.socket?.remoteAddress;
}

/** One spelling per client: IPv4 peers of a dual-stack socket arrive as ::ffff:a.b.c.d. */
function normalize(address: string) {
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}
