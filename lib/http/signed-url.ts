import type { Context } from "hono";

/**
 * The URL a client signed: its path and query on the public origin. Behind a proxy the server
 * sees another origin than the client used, so the operator names the public one (publicUrl), or
 * trusts the proxy's X-Forwarded-Proto and X-Forwarded-Host.
 */
export function signedUrlOf(options: { publicUrl?: string; trustProxy: boolean }): (c: Context) => string {
  const publicOrigin = options.publicUrl === undefined ? undefined : new URL(options.publicUrl).origin;
  return (c) => {
    const url = new URL(c.req.url);
    if (publicOrigin !== undefined) return publicOrigin + url.pathname + url.search;
    if (options.trustProxy) {
      const proto = c.req.header("X-Forwarded-Proto")?.split(",")[0].trim();
      const host = c.req.header("X-Forwarded-Host")?.split(",")[0].trim();
      if (proto !== "http" && proto !== "https" && !host) return c.req.url;
      // Built from parts: assigning url.host keeps the old port when the new host names none.
      const origin = `${proto === "http" || proto === "https" ? proto : url.protocol.slice(0, -1)}://${host || url.host}`;
      return new URL(url.pathname + url.search, origin).href;
    }
    return c.req.url;
  };
}
