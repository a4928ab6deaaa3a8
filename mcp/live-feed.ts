import type { Fetcher } from "./http-client.ts";

export type FeedListener = (event: string) => void;

export interface LiveFeeds {
  /** Calls `listener` with each event name of the stream at `path`; returns the unsubscribe. */
  subscribe(path: string, listener: FeedListener): () => void;
  close(): void;
}

export interface LiveFeedOptions {
  fetch: Fetcher;
  base: string;
  log?: (message: string) => void;
  /** Wait before reconnecting a dropped stream. */
  retryMs?: number;
}

/**
 * One SSE connection per stream path for the whole process, shared by every MCP session that
 * subscribed to it (the API's own streams bound connections per IP): opened by the first
 * subscriber, resumed with Last-Event-ID after a drop, closed with the last one.
 */
export function createLiveFeeds({ fetch, base, log, retryMs = 1_000 }: LiveFeedOptions): LiveFeeds {
  const streams = new Map<string, { listeners: Set<FeedListener>; abort: AbortController }>();

  async function run(path: string, listeners: Set<FeedListener>, abort: AbortController) {
    let lastEventId: string | undefined;
    while (!abort.signal.aborted) {
      try {
        const headers: Record<string, string> = { accept: "text/event-stream" };
        if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
        const response = await fetch(`${base}${path}`, { headers, signal: abort.signal });
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        for await (const message of sseMessages(response.body)) {
          if (message.id !== undefined) lastEventId = message.id;
          for (const listener of listeners) listener(message.event);
        }
      } catch (error) {
        if (abort.signal.aborted) return;
        log?.(`stream ${path} dropped: ${error instanceof Error ? error.message : String(error)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, retryMs).unref?.());
    }
  }

  return {
    subscribe(path, listener) {
      let stream = streams.get(path);
      if (!stream) {
        const created = { listeners: new Set<FeedListener>(), abort: new AbortController() };
        streams.set(path, created);
        stream = created;
        void run(path, created.listeners, created.abort);
      }
      stream.listeners.add(listener);
      const owner = stream;
      return () => {
        owner.listeners.delete(listener);
        if (owner.listeners.size === 0 && streams.get(path) === owner) {
          streams.delete(path);
          owner.abort.abort();
        }
      };
    },
    close() {
      for (const stream of streams.values()) stream.abort.abort();
      streams.clear();
    },
  };
}

export interface SseMessage {
  event: string;
  id?: string;
  data: string;
}

/** Server-sent events as EventSource reads them (comments skipped). */
export async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, "\n");
    for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line === "" || line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = value;
        else if (field === "id") id = value;
        else if (field === "data") data.push(value);
      }
      if (data.length > 0) yield { event, id, data: data.join("\n") };
    }
  }
}
