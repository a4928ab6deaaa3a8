/**
 * A server-sent event reader for tests: parses a response body into messages as EventSource
 * would (event, id, data lines; comments kept aside), with a time limit on every wait.
 */

export interface SseMessage {
  event: string;
  id?: string;
  data: string;
}

export class SseReader {
  /** Comments received (": ping" is "ping"). */
  readonly comments: string[] = [];
  /** The newest id: line, as EventSource keeps it for Last-Event-ID. */
  lastEventId: string | undefined;
  retry: number | undefined;
  ended = false;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = "";
  private pending: ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]> | undefined;
  private readonly ready: SseMessage[] = [];

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }

  /** The next message; throws after `timeoutMs` without one, or when the stream ends. */
  async next(timeoutMs = 10_000): Promise<SseMessage> {
    const deadline = Date.now() + timeoutMs;
    while (this.ready.length === 0) {
      if (this.ended) throw new Error("the stream ended");
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no server-sent event within ${timeoutMs} ms`);
      await this.readChunk(left);
    }
    return this.ready.shift()!;
  }

  /** Messages up to and including the first that `done` accepts. */
  async until(done: (message: SseMessage) => boolean, timeoutMs = 10_000): Promise<SseMessage[]> {
    const deadline = Date.now() + timeoutMs;
    const seen: SseMessage[] = [];
    for (;;) {
      const message = await this.next(Math.max(1, deadline - Date.now()));
      seen.push(message);
      if (done(message)) return seen;
    }
  }

  /** Waits for a comment (a heartbeat) or a message, whichever comes first. */
  async anything(timeoutMs: number): Promise<void> {
    const before = this.comments.length;
    const deadline = Date.now() + timeoutMs;
    while (this.comments.length === before && this.ready.length === 0 && !this.ended) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`nothing within ${timeoutMs} ms`);
      await this.readChunk(left);
    }
  }

  async close(): Promise<void> {
    this.ended = true;
    await this.reader.cancel().catch(() => {});
  }

  private async readChunk(timeoutMs: number): Promise<void> {
    this.pending ??= this.reader.read();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const result = await Promise.race([this.pending, timeout]);
    clearTimeout(timer);
    if (result === "timeout") return;
    this.pending = undefined;
    if (result.done) {
      this.ended = true;
      return;
    }
    this.buffer += this.decoder.decode(result.value, { stream: true });
    this.parse();
  }

  private parse(): void {
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end < 0) return;
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const message: SseMessage = { event: "message", data: "" };
      const data: string[] = [];
      let isMessage = false;
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) {
          this.comments.push(line.slice(1).trim());
          continue;
        }
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") message.event = value;
        else if (field === "data") data.push(value);
        else if (field === "id") {
          message.id = value;
          this.lastEventId = value;
        } else if (field === "retry") this.retry = Number(value);
        if (field === "event" || field === "data") isMessage = true;
      }
      message.data = data.join("\n");
      if (isMessage) this.ready.push(message);
    }
  }
}

/** Opens a stream with fetch (or any function returning a Response), checking its status and type. */
export async function openSse(response: Response | Promise<Response>): Promise<SseReader> {
  const res = await response;
  if (res.status !== 200) throw new Error(`stream answered ${res.status}: ${await res.text()}`);
  if (!res.headers.get("content-type")?.startsWith("text/event-stream"))
    throw new Error(`stream answered ${res.headers.get("content-type")}`);
  return new SseReader(res.body!);
}
