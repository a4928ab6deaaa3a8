import { connect } from "node:net";

export interface UpgradeOutcome {
  /** The status line the server answered ("" if none). */
  readonly status: string;
  /** Ms from the request to the server's close; Infinity when the socket was still open at the deadline. */
  readonly openMs: number;
}

/**
 * Sends `count` HTTP Upgrade requests for `path` at once, each on its own raw TCP connection from
 * this host, and waits up to `waitMs` for the server to close each one. A raw socket, not a
 * WebSocket client: it neither closes nor times out by itself, as an attacker holding sockets
 * would not.
 */
export async function rawUpgrades(
  base: string,
  path: string,
  { count = 1, upgrade = "websocket", headers = {}, waitMs = 1_000 } = {} as {
    count?: number;
    upgrade?: string;
    headers?: Record<string, string>;
    waitMs?: number;
  },
): Promise<UpgradeOutcome[]> {
  const { hostname, port } = new URL(base);
  const head = [
    `GET ${path} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    "Connection: Upgrade",
    `Upgrade: ${upgrade}`,
    "Sec-WebSocket-Version: 13",
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    "",
    "",
  ].join("\r\n");
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<UpgradeOutcome>((resolve) => {
          const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ""));
          let received = "";
          let sentAt = 0;
          const timer = setTimeout(() => {
            socket.destroy();
            resolve({ status: received.split("\r\n")[0]!, openMs: Infinity });
          }, waitMs);
          socket.on("connect", () => {
            sentAt = performance.now();
            socket.write(head);
          });
          socket.on("data", (data) => {
            received += data.toString("latin1");
          });
          socket.on("error", () => {});
          socket.on("close", () => {
            clearTimeout(timer);
            resolve({ status: received.split("\r\n")[0]!, openMs: performance.now() - sentAt });
          });
        }),
    ),
  );
}
