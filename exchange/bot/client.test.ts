import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { ExchangeHttp } from "./client.ts";

describe("ExchangeHttp.signed", () => {
  it("never sends the same signature twice: timestamps strictly increase, also within one millisecond", async () => {
    const sent: { timestamp: number; signature: string }[] = [];
    const fetchImpl = (async (_input: string, init: RequestInit = {}) => {
      const headers = init.headers as Record<string, string>;
      sent.push({ timestamp: Number(headers["API-Timestamp"]), signature: headers["API-Signature"] });
      return new Response("[]", { status: 200 });
    }) as typeof fetch;
    const http = new ExchangeHttp("http://exchange.test:8080", { fetch: fetchImpl });
    const key = { publicKey: "pk_a", privateKey: "sk_a" };
    // The server accepts a timestamped signature once: identical reads must still differ.
    await Promise.all(Array.from({ length: 50 }, () => http.signed(key, "GET", "/api/balances")));
    for (let i = 1; i < sent.length; i++) assert.ok(sent[i]!.timestamp > sent[i - 1]!.timestamp, `call ${i}`);
    assert.equal(new Set(sent.map((s) => s.signature)).size, 50);
    assert.ok(Math.abs(sent[0]!.timestamp - Date.now()) < 5_000, "close to the clock");
  });
});
