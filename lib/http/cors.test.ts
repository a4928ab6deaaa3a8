import assert from "node:assert/strict";
import { Hono } from "hono";
import { cors } from "hono/cors";
import { describe, it } from "vitest";
import { browserCors } from "./cors.ts";

const WEB = "http://127.0.0.1:3000";
const EVIL = "https://evil.example";

function appWith(outer?: "ponder") {
  const app = new Hono();
  // Ponder's own server answers every request with Access-Control-Allow-Origin: * before the app runs.
  if (outer) app.use(async (c, next) => (c.req.method === "OPTIONS" ? next() : cors({ origin: "*" })(c, next)));
  app.use(
    "/api/*",
    browserCors({
      origins: [WEB, "http://localhost:3000"],
      methods: ["GET", "POST"],
      allowHeaders: ["API-PublicKey", "API-Signature", "Content-Type"],
      exposeHeaders: ["Retry-After", "X-Request-Id"],
    }),
  );
  app.get("/api/things", (c) => c.json([1]));
  app.post("/api/things", (c) => c.json({ ok: true }, 201));
  app.get("/api/broken", () => {
    throw new Error("boom");
  });
  app.onError((_, c) => c.json({ code: "INTERNAL" }, 500));
  return app;
}

const preflight = (app: Hono, origin: string) =>
  app.request("/api/things", {
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": "api-publickey,api-signature,content-type",
    },
  });

const corsHeaders = (res: Response) =>
  [...res.headers.keys()].filter((name) => name.startsWith("access-control-")).sort();

describe("browserCors", () => {
  it("answers a preflight from an allowed origin with that origin, the methods and the signing headers", async () => {
    const res = await preflight(appWith(), WEB);
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), WEB);
    assert.equal(res.headers.get("access-control-allow-methods"), "GET,POST");
    assert.equal(res.headers.get("access-control-allow-headers"), "API-PublicKey,API-Signature,Content-Type");
    assert.equal(res.headers.get("access-control-max-age"), "600");
    assert.equal(res.headers.get("access-control-allow-credentials"), null);
    assert.match(res.headers.get("vary") ?? "", /Origin/);
  });

  it("gives a preflight from another origin no CORS header: it is an unknown route", async () => {
    const res = await preflight(appWith(), EVIL);
    assert.equal(res.status, 404);
    assert.deepEqual(corsHeaders(res), []);
  });

  it("marks answers to an allowed origin, errors included, and only those", async () => {
    const app = appWith();
    for (const [path, method, status] of [
      ["/api/things", "GET", 200],
      ["/api/things", "POST", 201],
      ["/api/broken", "GET", 500],
    ] as const) {
      const allowed = await app.request(path, { method, headers: { Origin: WEB } });
      assert.equal(allowed.status, status);
      assert.equal(allowed.headers.get("access-control-allow-origin"), WEB, `${method} ${path}`);
      assert.equal(allowed.headers.get("access-control-expose-headers"), "Retry-After,X-Request-Id");
      const other = await app.request(path, { method, headers: { Origin: EVIL } });
      assert.equal(other.status, status);
      assert.deepEqual(corsHeaders(other), [], `${method} ${path} from another origin`);
      assert.match(other.headers.get("vary") ?? "", /Origin/);
      assert.deepEqual(corsHeaders(await app.request(path, { method })), [], `${method} ${path} without Origin`);
    }
    const other = await app.request("/api/things", { headers: { Origin: "http://localhost:3000" } });
    assert.equal(other.headers.get("access-control-allow-origin"), "http://localhost:3000");
  });

  it("replaces a wildcard a server in front added, and removes it for other origins", async () => {
    const app = appWith("ponder");
    const allowed = await app.request("/api/things", { headers: { Origin: WEB } });
    assert.equal(allowed.headers.get("access-control-allow-origin"), WEB);
    const other = await app.request("/api/things", { headers: { Origin: EVIL } });
    assert.deepEqual(corsHeaders(other), []);
    assert.deepEqual(corsHeaders(await app.request("/api/things")), []);
  });

  it("refuses a wildcard origin", () => {
    assert.throws(
      () => browserCors({ origins: ["*"], methods: ["GET"], allowHeaders: [], exposeHeaders: [] }),
      /\* is not accepted/,
    );
  });
});
