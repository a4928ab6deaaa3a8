import { describe, expect, it } from "vitest";
import type { Fetcher } from "./http-client.ts";
import { createLiveFeeds, sseMessages } from "./live-feed.ts";

const streamOf = (text: string, keepOpen = false) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      if (!keepOpen) controller.close();
    },
  });

describe("sseMessages", () => {
  it("reads events, ids and multi-line data, skipping comments", async () => {
    const seen = [];
    for await (const message of sseMessages(
      streamOf('retry: 2000\n\n: ping\n\nevent: action\nid: 7\ndata: {"a":\ndata: 1}\n\ndata: x\r\n\r\n'),
    ))
      seen.push(message);
    expect(seen).toEqual([
      { event: "action", id: "7", data: '{"a":\n1}' },
      { event: "message", id: undefined, data: "x" },
    ]);
  });
});

describe("createLiveFeeds", () => {
  it("shares one connection per stream, resumes with Last-Event-ID and closes with the last listener", async () => {
    const asked: { url: string; lastEventId: string | null; signal?: AbortSignal | null }[] = [];
    const fetch: Fetcher = async (url, init) => {
      const headers = new Headers(init?.headers);
      asked.push({ url, lastEventId: headers.get("last-event-id"), signal: init?.signal });
      // The first connection sends one event then drops; the second stays open.
      return new Response(streamOf("event: action\nid: 1-1\ndata: {}\n\n", asked.length > 1));
    };
    const feeds = createLiveFeeds({ fetch, base: "http://api", retryMs: 10 });
    const a: string[] = [];
    const b: string[] = [];
    const offA = feeds.subscribe("/s", (event) => a.push(event));
    const offB = feeds.subscribe("/s", (event) => b.push(event));
    await expect.poll(() => asked.length).toBe(2);
    expect(asked.map((x) => [x.url, x.lastEventId])).toEqual([
      ["http://api/s", null],
      ["http://api/s", "1-1"],
    ]);
    await expect.poll(() => a.length).toBe(2);
    expect(b).toEqual(a);
    offA();
    expect(asked[1]?.signal?.aborted).toBe(false);
    offB();
    expect(asked[1]?.signal?.aborted).toBe(true);
    feeds.close();
  });
});
