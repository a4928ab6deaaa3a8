import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, it } from "vitest";
import { createWebApp, type WebAppOptions } from "./app.ts";
import type { WebConfig } from "./config.ts";
import { type StaticFiles, staticFiles } from "./static.ts";

const INDEX = "<!doctype html><html><head><title>app</title></head><body><div id=root></div></body></html>";
const SCRIPT = `console.log(${JSON.stringify("x".repeat(5000))});\n`;
const CONFIG: WebConfig = {
  ecosystemApiUrl: "http://127.0.0.1:42069",
  exchangeApiUrl: "http://127.0.0.1:8080",
  exchangeWsUrl: "ws://127.0.0.1:8080/ws",
  rpcUrl: "http://127.0.0.1:8545",
  chainId: 31337,
  contracts: { AgentSpawner: "0x0000000000000000000000000000000000000001" } as unknown as WebConfig["contracts"],
};
const CSP = "default-src 'self'; script-src 'self'";

let root = "";
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "web-app-"));
  await mkdir(join(root, "assets"));
  await writeFile(join(root, "index.html"), INDEX);
  await writeFile(join(root, "assets", "index-Ab12Cd.js"), SCRIPT);
  await writeFile(join(root, "favicon.svg"), "<svg/>");
});
afterEach(() => rm(root, { recursive: true, force: true }));

function app(options: Partial<WebAppOptions> = {}) {
  return createWebApp({
    files: staticFiles(root),
    config: async () => CONFIG,
    csp: CSP,
    rateLimitPerMinute: 1000,
    trustProxy: false,
    requestTimeoutMs: 5_000,
    ...options,
  });
}

const json = async (response: Response): Promise<any> => response.json();

function assertSecurityHeaders(response: Response) {
  assert.equal(response.headers.get("Content-Security-Policy"), CSP);
  assert.equal(response.headers.get("X-Content-Type-Options"), "nosniff");
  assert.equal(response.headers.get("Referrer-Policy"), "strict-origin-when-cross-origin");
  assert.equal(response.headers.get("X-Frame-Options"), "DENY");
}

describe("the web app's server", () => {
  it("answers / and every app route with index.html, revalidated on each use", async () => {
    for (const path of [
      "/",
      "/tokens/0xAbC0000000000000000000000000000000000001",
      "/market/ETH_USDT",
      "/agents/workers/3",
    ]) {
      const response = await app().request(path);
      assert.equal(response.status, 200, path);
      assert.equal(response.headers.get("Content-Type"), "text/html; charset=utf-8");
      assert.equal(response.headers.get("Cache-Control"), "no-cache");
      assert.equal(await response.text(), INDEX);
      assertSecurityHeaders(response);
    }
  });

  it("serves hashed assets as immutable, Brotli or gzip as the client accepts", async () => {
    const server = app();
    const br = await server.request("/assets/index-Ab12Cd.js", { headers: { "Accept-Encoding": "gzip, br" } });
    assert.equal(br.status, 200);
    assert.equal(br.headers.get("Cache-Control"), "public, max-age=31536000, immutable");
    assert.equal(br.headers.get("Content-Encoding"), "br");
    assert.equal(br.headers.get("Vary"), "Accept-Encoding");
    assert.equal(br.headers.get("Content-Type"), "text/javascript; charset=utf-8");
    assert.equal(brotliDecompressSync(Buffer.from(await br.arrayBuffer())).toString(), SCRIPT);
    const gz = await server.request("/assets/index-Ab12Cd.js", { headers: { "Accept-Encoding": "gzip" } });
    assert.equal(gz.headers.get("Content-Encoding"), "gzip");
    assert.equal(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString(), SCRIPT);
    const plain = await server.request("/assets/index-Ab12Cd.js");
    assert.equal(plain.headers.get("Content-Encoding"), null);
    assert.equal(await plain.text(), SCRIPT);
    assertSecurityHeaders(plain);
  });

  it("answers 304 to a matching If-None-Match, and a HEAD without a body", async () => {
    const server = app();
    const first = await server.request("/favicon.svg");
    const etag = first.headers.get("ETag")!;
    assert.match(etag, /^"[\w-]+"$/);
    const again = await server.request("/favicon.svg", { headers: { "If-None-Match": `"other", ${etag}` } });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), "");
    const head = await server.request("/favicon.svg", { method: "HEAD" });
    assert.deepEqual([head.status, head.headers.get("Content-Type"), await head.text()], [200, "image/svg+xml", ""]);
  });

  it("answers 404 JSON for a missing asset or file, never the page", async () => {
    for (const path of ["/assets/index-Old999.js", "/favicon.ico", "/%2e%2e/package.json", "/.env"]) {
      const response = await app().request(path);
      assert.equal(response.status, 404, path);
      assert.equal((await json(response)).code, "NOT_FOUND");
      assertSecurityHeaders(response);
    }
  });

  it("serves /config.json from the platform's configuration, 503 while there is none", async () => {
    const ok = await app().request("/config.json");
    assert.deepEqual([ok.status, ok.headers.get("Cache-Control")], [200, "no-cache"]);
    assert.deepEqual(await ok.json(), CONFIG);
    const none = await app({ config: () => Promise.reject(new Error("No deployment for chain 31337")) }).request(
      "/config.json",
    );
    assert.equal(none.status, 503);
    assert.deepEqual(await none.json(), {
      code: "UNAVAILABLE",
      message: "No configuration yet: No deployment for chain 31337",
    });
  });

  it("says the app is not built (503) when there is no index.html", async () => {
    await rm(join(root, "index.html"));
    const response = await app().request("/spawn");
    assert.equal(response.status, 503);
    assert.match((await json(response)).message, /npm run build:web/);
  });

  it("refuses other methods (405, Allow) and malformed paths (400)", async () => {
    const post = await app().request("/", { method: "POST", body: "x" });
    assert.deepEqual([post.status, post.headers.get("Allow")], [405, "GET, HEAD"]);
    assert.equal((await json(post)).code, "METHOD_NOT_ALLOWED");
    const bad = await app().request("/tokens/%E0%A4%A");
    assert.deepEqual([bad.status, (await json(bad)).code], [400, "INVALID_PARAM"]);
  });

  it("limits requests per client IP like the APIs: RateLimit-* headers, then 429 with Retry-After", async () => {
    let now = 1_000_000;
    const server = app({ rateLimitPerMinute: 2, now: () => now });
    const first = await server.request("/");
    assert.deepEqual([first.headers.get("RateLimit-Limit"), first.headers.get("RateLimit-Remaining")], ["2", "1"]);
    await server.request("/config.json");
    const limited = await server.request("/");
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("Retry-After"), "60");
    assert.equal((await json(limited)).code, "RATE_LIMITED");
    assertSecurityHeaders(limited);
    now += 60_000;
    assert.equal((await server.request("/")).status, 200, "a new window opens after a minute");
  });

  it("answers 503 when a file cannot be read in time, instead of holding the request", async () => {
    const stuck: StaticFiles = { get: () => new Promise(() => {}) };
    const response = await app({ files: stuck, requestTimeoutMs: 50 }).request("/");
    assert.equal(response.status, 503);
    assert.deepEqual(await json(response), { code: "UNAVAILABLE", message: "No answer within 50 ms; retry" });
    assert.equal(response.headers.get("X-Content-Type-Options"), "nosniff");
  });
});
