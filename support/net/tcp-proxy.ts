import { createServer, connect, type Server, type Socket } from "node:net";

// A TCP proxy for fault-injection tests: forwards connections to a target, and on command
// blackholes them (nothing passes either way, nothing is closed or reset, as with a dead network
// link), restores them (what was sent meanwhile is then delivered, as TCP retransmission would),
// or resets every connection (RST to both sides).

interface Link {
  readonly client: Socket;
  readonly upstream: Socket;
}

export class TcpProxy {
  readonly port: number;
  private readonly server: Server;
  private readonly links = new Set<Link>();
  private blackholed = false;

  private constructor(server: Server, port: number) {
    this.server = server;
    this.port = port;
  }

  /** Listens on a free port of 127.0.0.1 and forwards every connection to `target`. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => proxy!.accept(client, target));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    proxy = new TcpProxy(server, (server.address() as { port: number }).port);
    return proxy;
  }

  private accept(client: Socket, target: { host: string; port: number }): void {
    const upstream = connect(target.port, target.host);
    const link: Link = { client, upstream };
    this.links.add(link);
    // Manual forwarding rather than pipe(): pipe() resumes a paused source on 'drain', which
    // would let data through a blackhole.
    client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("data", (chunk) => client.write(chunk));
    const close = () => {
      this.links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", close);
    upstream.on("close", close);
    client.on("error", () => {});
    upstream.on("error", () => {});
    if (this.blackholed) this.hold(link);
  }

  private hold(link: Link): void {
    link.client.pause();
    link.upstream.pause();
  }

  /** Connections open now. */
  get connections(): number {
    return this.links.size;
  }

  /** Stops every byte in both directions, on open and new connections, closing nothing. */
  blackhole(): void {
    this.blackholed = true;
    for (const link of this.links) this.hold(link);
  }

  /** Forwards again, first delivering whatever was held. */
  restore(): void {
    this.blackholed = false;
    for (const link of this.links) {
      link.client.resume();
      link.upstream.resume();
    }
  }

  /** Resets every open connection (RST both ways); new ones are handled as before. */
  reset(): void {
    for (const link of [...this.links]) {
      this.links.delete(link);
      link.client.resetAndDestroy();
      link.upstream.resetAndDestroy();
    }
  }

  async close(): Promise<void> {
    this.reset();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
