import { describe, expect, it } from "vitest";
import { actionLogStreamUrl, agentLabel, isActionEntry, payloadSummary } from "./entries.ts";

describe("action log entries", () => {
  it("labels agents by tier and id", () => {
    expect(agentLabel("worker:3")).toBe("worker #3");
    expect(agentLabel("queen:12")).toBe("queen #12");
    expect(agentLabel("odd")).toBe("odd");
  });

  it("summarises a payload on one line, cut to length", () => {
    expect(payloadSummary(null)).toBe("");
    expect(payloadSummary({ side: "buy", bps: 50, nested: { a: 1 } })).toBe('side: buy, bps: 50, nested: {"a":1}');
    const long = payloadSummary({ note: "x".repeat(200) }, 20);
    expect(long).toHaveLength(20);
    expect(long.endsWith("…")).toBe(true);
  });

  it("asks the stream for the list's filters", () => {
    const url = new URL(
      actionLogStreamUrl("http://127.0.0.1:42069", { tier: "scout", token: "4", since: 10, page: 3 }),
    );
    expect(url.pathname).toBe("/api/agents/action-logs/stream");
    expect(Object.fromEntries(url.searchParams)).toEqual({ sourceTier: "scout", tokenId: "4", since: "10" });
  });

  it("accepts only entry-shaped stream data", () => {
    const entry = {
      entryId: 1,
      sourceAgentId: "worker:1",
      sourceTier: "worker",
      targetTokenId: 1,
      actionType: "trade",
      actionPayload: null,
      reasonCode: "r",
      blockNumber: 5,
      timestamp: 100,
      txHash: "0xab",
    };
    expect(isActionEntry(entry)).toBe(true);
    expect(isActionEntry({ ...entry, entryId: "1" })).toBe(false);
    expect(isActionEntry(null)).toBe(false);
  });
});
