import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/**
 * A JSON-RPC node that can be stopped and resumed, as SIGSTOP and SIGCONT do to a node process: an
 * HTTP proxy in front of it which, once paused, takes requests and answers none (connections stay
 * open, nothing is refused or reset), then on resume delivers every request it held to the node,
 * answering whoever is still waiting. It pauses on command or by itself at the first request
 * calling a given method (`pauseAt("eth_estimateGas")`): a stop in the middle of a write, at a
 * step named, with no race against a timer.
 */
export class RpcGate {
  readonly url: string;
  private readonly server: Server;
  private readonly target: string;
  private paused = false;
  private trigger: string | undefined;
  private held: (() => void)[] = [];
  private onPause: (() => void) | undefined;
  /** JSON-RPC methods seen (each call of a batch), in order: what a test may assert on. */
  readonly methods: string[] = [];

  private constructor(server: Server, url: string, target: string) {
    this.server = server;
    this.url = url;
    this.target = target;
  }

  static async start(target: string): Promise<RpcGate> {
    let gate: RpcGate | undefined;
    const server = createServer((request, response) => void gate!.handle(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    gate = new RpcGate(server, `http://127.0.0.1:${(server.address() as { port: number }).port}`, target);
    return gate;
  }

  /** Stops answering from the first request that calls `method` on (that request included). */
  pauseAt(method: string): Promise<void> {
    this.trigger = method;
    return new Promise((resolve) => (this.onPause = resolve));
  }

  pause(): void {
    this.paused = true;
    this.onPause?.();
  }

  /** Answers again: the requests held are delivered to the node, in the order they came. */
  resume(): void {
    this.paused = false;
    this.trigger = undefined;
    const held = this.held;
    this.held = [];
    for (const deliver of held) deliver();
  }

  get isPaused(): boolean {
    return this.paused;
  }

  async close(): Promise<void> {
    this.resume();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const methods = methodsOf(body);
    this.methods.push(...methods);
    if (this.trigger !== undefined && methods.includes(this.trigger)) this.pause();
    if (this.paused) await new Promise<void>((resolve) => this.held.push(resolve));
    try {
      const answer = await fetch(this.target, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      const text = await answer.text();
      if (response.destroyed) return;
      response.writeHead(answer.status, { "content-type": "application/json" });
      response.end(text);
    } catch {
      response.destroy();
    }
  }
}

function methodsOf(body: string): string[] {
  try {
    const parsed = JSON.parse(body) as { method?: string } | { method?: string }[];
    return (Array.isArray(parsed) ? parsed : [parsed]).map((call) => String(call.method));
  } catch {
    return [];
  }
}
