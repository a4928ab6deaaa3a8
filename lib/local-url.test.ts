import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { localUrl } from "./local-url.ts";

describe("localUrl", () => {
  it("reaches a server listening on every interface at 127.0.0.1", () => {
    assert.equal(localUrl("0.0.0.0", 3000), "http://127.0.0.1:3000");
    assert.equal(localUrl("::", 8080), "http://127.0.0.1:8080");
  });

  it("keeps a named host or address, IPv6 in brackets", () => {
    assert.equal(localUrl("127.0.0.1", 42069), "http://127.0.0.1:42069");
    assert.equal(localUrl("localhost", 3000), "http://localhost:3000");
    assert.equal(localUrl("::1", 3000), "http://[::1]:3000");
    assert.equal(localUrl("fe80::1", 80), "http://[fe80::1]:80");
  });

  it("takes another scheme", () => {
    assert.equal(localUrl("0.0.0.0", 8080, "ws"), "ws://127.0.0.1:8080");
  });
});
