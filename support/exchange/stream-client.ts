/** A WebSocket client of the exchange's /ws for tests: requests by id, events kept in order. */
import WebSocket from "ws";
import { sign, signatureText } from "../../exchange/adapters/auth/index.ts";
import type { Credentials } from "./signing-client.ts";

export interface StreamEvent {
  readonly stream: string;
  readonly data: any;
}

export class StreamClient {
  readonly url: string;
  readonly socket: WebSocket;
  /** Every event received, in order. */
  readonly events: StreamEvent[] = [];
  closed: { code: number; reason: string } | undefined;
  private nextId = 1;
  private readonly answers = new Map<unknown, (body: any) => void>();
  private readonly waiters = new Set<() => void>();

  private constructor(url: string, socket: WebSocket) {
    this.url = url;
    this.socket = socket;
    socket.on("message", (raw) => {
      const body = JSON.parse(raw.toString());
      if ("stream" in body) this.events.push(body);
      else this.answers.get(body.id)?.(body);
      for (const wake of this.waiters) wake();
    });
    socket.on("close", (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      for (const wake of this.waiters) wake();
    });
  }

  /** `base` is the exchange's http:// URL. */
  static async connect(base: string, path = "/ws"): Promise<StreamClient> {
    const url = `${base.replace(/^http/, "ws")}${path}`;
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
      socket.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
    return new StreamClient(url, socket);
  }

  /** Sends a request and resolves with its answer (`{result}` or `{error}`). */
  request(method: string, params?: unknown): Promise<any> {
    const id = this.nextId++;
    const answered = new Promise((resolve) => this.answers.set(id, resolve));
    this.socket.send(JSON.stringify({ method, ...(params === undefined ? {} : { params }), id }));
    return answered;
  }

  /** Sends raw text; resolves with the next answer that carries no event. */
  raw(text: string): Promise<any> {
    const answered = new Promise((resolve) => {
      this.answers.set(null, resolve);
      this.answers.set(undefined, resolve);
    });
    this.socket.send(text);
    return answered;
  }

  login(who: Credentials, timestamp = Date.now()): Promise<any> {
    const signature = sign(
      who.privateKey,
      signatureText({ publicKey: who.publicKey, url: this.url, body: "", timestamp }),
    );
    return this.request("LOGIN", { apiKey: who.publicKey, timestamp: String(timestamp), signature });
  }

  /** Resolves once `ready()` holds (checked on every message), or rejects after `timeoutMs`. */
  async until(ready: () => boolean, timeoutMs = 10_000, what = "condition"): Promise<void> {
    if (ready()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const check = () => {
        if (!ready()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  close(): void {
    this.socket.close();
  }
}

/**
 * A local order book kept from `@depth` diffs by the documented procedure: diffs buffered until a
 * snapshot is applied, then each must continue from the previous one (U = last u + 1), else the
 * book is out of step and must be rebuilt from a new snapshot.
 */
export class LocalBook {
  readonly bids = new Map<string, string>();
  readonly asks = new Map<string, string>();
  lastUpdateId: number | undefined;
  gaps = 0;

  /** Applies a snapshot, then the buffered diffs it does not include; false if they do not continue it. */
  load(
    snapshot: { lastUpdateId: number; bids: [string, string][]; asks: [string, string][] },
    buffered: any[],
  ): boolean {
    this.bids.clear();
    this.asks.clear();
    for (const [p, q] of snapshot.bids) this.bids.set(p, q);
    for (const [p, q] of snapshot.asks) this.asks.set(p, q);
    this.lastUpdateId = snapshot.lastUpdateId;
    for (const diff of buffered) if (!this.apply(diff)) return false;
    return true;
  }

  /** Applies one diff; false on a gap (the caller resyncs). */
  apply(diff: { U: number; u: number; b: [string, string][]; a: [string, string][] }): boolean {
    if (this.lastUpdateId === undefined) return false;
    if (diff.u <= this.lastUpdateId) return true; // already in the snapshot
    if (diff.U > this.lastUpdateId + 1) {
      this.gaps++;
      this.lastUpdateId = undefined;
      return false;
    }
    for (const [p, q] of diff.b) q === "0" || /^0(\.0+)?$/.test(q) ? this.bids.delete(p) : this.bids.set(p, q);
    for (const [p, q] of diff.a) q === "0" || /^0(\.0+)?$/.test(q) ? this.asks.delete(p) : this.asks.set(p, q);
    this.lastUpdateId = diff.u;
    return true;
  }

  /** Best first, as the snapshot lists them. */
  sorted(): { bids: [string, string][]; asks: [string, string][] } {
    const by = (desc: boolean) => (a: [string, string], b: [string, string]) =>
      desc ? Number(b[0]) - Number(a[0]) : Number(a[0]) - Number(b[0]);
    return { bids: [...this.bids].sort(by(true)), asks: [...this.asks].sort(by(false)) };
  }
}
