import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { Hono } from "hono";
import { signedUrlOf } from "./signed-url.ts";

// The URL a signature is checked against: what the client sent, also behind a TLS-terminating proxy.

async function urlSeen(
  options: { publicUrl?: string; trustProxy: boolean },
  path: string,
  headers: Record<string, string> = {},
) {
  const app = new Hono();
  const urlOf = signedUrlOf(options);
  app.get("/*", (c) => c.text(urlOf(c)));
  return (await app.request(`http://127.0.0.1:8080${path}`, { headers })).text();
}

describe("signedUrlOf", () => {
  const forwarded = { "X-Forwarded-Proto": "https", "X-Forwarded-Host": "api.example.com" };

  it("is the request's own URL by default, and ignores forwarding headers it cannot trust", async () => {
    assert.equal(await urlSeen({ trustProxy: false }, "/api/orders?x=1"), "http://127.0.0.1:8080/api/orders?x=1");
    assert.equal(await urlSeen({ trustProxy: false }, "/api/orders", forwarded), "http://127.0.0.1:8080/api/orders");
  });

  it("behind a trusted proxy, takes scheme and host from X-Forwarded-Proto and X-Forwarded-Host (no stale port)", async () => {
    assert.equal(
      await urlSeen({ trustProxy: true }, "/api/orders?x=1", forwarded),
      "https://api.example.com/api/orders?x=1",
    );
    assert.equal(
      await urlSeen({ trustProxy: true }, "/api/orders", { "X-Forwarded-Proto": "https, http" }),
      "https://127.0.0.1:8080/api/orders",
    );
    assert.equal(
      await urlSeen({ trustProxy: true }, "/api/orders", { "X-Forwarded-Proto": "gopher" }),
      "http://127.0.0.1:8080/api/orders",
    );
  });

  it("prefers a configured public URL over everything", async () => {
    assert.equal(
      await urlSeen(
        { publicUrl: "https://x.example.org:8443/ignored", trustProxy: true },
        "/api/balances?a=b",
        forwarded,
      ),
      "https://x.example.org:8443/api/balances?a=b",
    );
  });
});
