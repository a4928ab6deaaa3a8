import assert from "node:assert/strict";
import { Hono } from "hono";
import { describe, it } from "vitest";
import { requestId } from "./request-id.ts";

function app() {
  const hono = new Hono();
  hono.use(requestId());
  hono.get("/", (c) => c.text(String(c.get("requestId" as never))));
  return hono;
}

describe("requestId", () => {
  it("gives every response an X-Request-Id, the same one handlers read", async () => {
    const response = await app().request("/");
    const id = response.headers.get("X-Request-Id");
    assert.ok(id && id.length > 0);
    assert.equal(await response.text(), id);
  });

  it("gives two requests different ids", async () => {
    const [a, b] = await Promise.all([app().request("/"), app().request("/")]);
    assert.notEqual(a.headers.get("X-Request-Id"), b.headers.get("X-Request-Id"));
  });

  it("keeps a well-formed incoming id, so a proxy's id flows through", async () => {
    const response = await app().request("/", { headers: { "X-Request-Id": "edge-7f3a" } });
    assert.equal(response.headers.get("X-Request-Id"), "edge-7f3a");
  });

  it("replaces an id that is too long or has characters outside the allowed set", async () => {
    for (const bad of ["x".repeat(129), "bad id\twith tab", "<script>"]) {
      const response = await app().request("/", { headers: { "X-Request-Id": bad } });
      const id = response.headers.get("X-Request-Id");
      assert.ok(id && id !== bad, `kept ${JSON.stringify(bad)}`);
    }
  });
});
