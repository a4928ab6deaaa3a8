import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { Hono } from "hono";
import { clientIp } from "./client-ip.ts";

const ipOf = async (trustProxy: boolean, headers: Record<string, string>, remoteAddress?: string) => {
  const app = new Hono();
  app.get("/", (c) => c.text(clientIp(c, { trustProxy })));
  const env = remoteAddress ? { incoming: { socket: { remoteAddress } } } : undefined;
  return (await app.request("/", { headers }, env)).text();
};

describe("clientIp", () => {
  it("is the TCP peer, whatever X-Forwarded-For says, unless the proxy is trusted", async () => {
    assert.equal(await ipOf(false, { "x-forwarded-for": "6.6.6.6" }, "10.1.2.3"), "10.1.2.3");
  });

  it("is the last X-Forwarded-For entry behind a trusted proxy (earlier ones are client-supplied)", async () => {
    assert.equal(await ipOf(true, { "x-forwarded-for": "6.6.6.6, 203.0.113.9" }, "10.0.0.1"), "203.0.113.9");
  });

  it("falls back to the peer when a trusted proxy sent no header", async () => {
    assert.equal(await ipOf(true, {}, "10.0.0.1"), "10.0.0.1");
  });

  it("spells IPv4-mapped IPv6 peers as IPv4", async () => {
    assert.equal(await ipOf(false, {}, "::ffff:127.0.0.1"), "127.0.0.1");
    assert.equal(await ipOf(false, {}, "::1"), "::1");
  });

  it("is 'unknown' without a socket (in-process requests)", async () => {
    assert.equal(await ipOf(false, {}), "unknown");
  });
});
