/**
 * The URL a browser (or a client on this machine) opens for a server listening on `host`:`port`:
 * an address that means "every interface" (0.0.0.0, ::) is reached at 127.0.0.1, and an IPv6
 * address goes in brackets.
 */
export function localUrl(host: string, port: number, scheme = "http"): string {
  const reachable = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return `${scheme}://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`;
}
