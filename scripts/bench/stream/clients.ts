import { Worker } from "node:worker_threads";
import { Histogram } from "./histogram.ts";

/**
 * The bench's WebSocket clients, spread over threads (client-thread.ts) so that reading
 * thousands of sockets never shares an event loop with the order sender on the main thread.
 */

export type ThreadRequest = { id: number } & (
  | { op: "connect"; targets: string[]; streams: string[]; batch: number }
  | { op: "window"; from: number; to: number }
  | { op: "stats" }
  | { op: "close" }
);

export type ThreadReply =
  | { op: "connect"; opened: number; failed: number; errors: string[] }
  | { op: "window" }
  | {
      op: "stats";
      histogram: { counts: Uint32Array; count: number; max: number };
      /** Clients that subscribed; the per-client counts are theirs. */
      clients: number;
      perClientMin: number;
      perClientMax: number;
      /** Date.now() of the last event received (any window). */
      lastAt: number;
      /** Clients the server closed, by close code. */
      closedBy: Record<number, number>;
      /** Event-loop utilisation of the thread since the window opened (1 = saturated). */
      busy: number;
    }
  | { op: "close" };

type Request = ThreadRequest extends infer R ? (R extends ThreadRequest ? Omit<R, "id"> : never) : never;

export interface ClientStats {
  readonly histogram: Histogram;
  readonly events: number;
  readonly perClientMin: number;
  readonly perClientMax: number;
  readonly lastAt: number;
  readonly closedBy: Record<number, number>;
  /** Busiest client thread's event-loop utilisation. */
  readonly busy: number;
}

export type ClientImpl = "raw" | "ws";

class ClientThread {
  private readonly thread: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, (reply: ThreadReply) => void>();
  private failure: Error | undefined;

  constructor(impl: ClientImpl) {
    this.thread = new Worker(new URL("./client-thread.ts", import.meta.url), { workerData: { impl } });
    this.thread.on("message", (reply: ThreadReply & { id: number }) => {
      this.waiting.get(reply.id)?.(reply);
      this.waiting.delete(reply.id);
    });
    this.thread.on("error", (error) => {
      this.failure = error;
      for (const wake of this.waiting.values()) wake({ op: "close" });
    });
  }

  ask<T extends ThreadReply["op"]>(request: Request & { op: T }): Promise<ThreadReply & { op: T }> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, (reply) =>
        this.failure ? reject(this.failure) : resolve(reply as ThreadReply & { op: T }),
      );
      this.thread.postMessage({ ...request, id });
    });
  }

  stop(): Promise<number> {
    return this.thread.terminate();
  }
}

export class ClientPool {
  private readonly threads: ClientThread[];

  constructor(threads: number, impl: ClientImpl) {
    this.threads = Array.from({ length: threads }, () => new ClientThread(impl));
  }

  /** Opens one client per target URL (dealt round-robin to the threads), each subscribed to `streams`. */
  async connect(targets: string[], streams: string[], batch: number): Promise<void> {
    const share = this.threads.map((_, t) => targets.filter((_, i) => i % this.threads.length === t));
    const perThread = Math.max(1, Math.ceil(batch / this.threads.length));
    const replies = await Promise.all(
      this.threads.map((thread, t) => thread.ask({ op: "connect", targets: share[t]!, streams, batch: perThread })),
    );
    const failed = replies.reduce((n, r) => n + r.failed, 0);
    if (failed > 0)
      throw new Error(
        `${failed} of ${targets.length} clients could not subscribe: ${replies.flatMap((r) => r.errors).join("; ")}`,
      );
  }

  /** Counts events whose E is in [from, to] from now on; a new `from` starts afresh. */
  async window(from: number, to: number): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.ask({ op: "window", from, to })));
  }

  async stats(): Promise<ClientStats> {
    const replies = await Promise.all(this.threads.map((thread) => thread.ask({ op: "stats" })));
    const histogram = new Histogram();
    const closedBy: Record<number, number> = {};
    for (const r of replies) {
      histogram.merge(r.histogram);
      for (const [code, n] of Object.entries(r.closedBy)) closedBy[Number(code)] = (closedBy[Number(code)] ?? 0) + n;
    }
    return {
      histogram,
      events: histogram.count,
      perClientMin: Math.min(...replies.filter((r) => r.clients > 0).map((r) => r.perClientMin)),
      perClientMax: Math.max(0, ...replies.map((r) => r.perClientMax)),
      lastAt: Math.max(...replies.map((r) => r.lastAt)),
      closedBy,
      busy: Math.max(...replies.map((r) => r.busy)),
    };
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.ask({ op: "close" })));
  }

  async stop(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.stop()));
  }
}
