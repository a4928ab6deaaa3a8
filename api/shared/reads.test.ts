import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { z } from "zod";
import {
  createRateLimiter,
  createRouteServer,
  defineRoute,
  errorHandler,
  notFound,
  OpenAPIHono,
} from "../../lib/http/index.ts";
import { pageQuery, tokenRefParam } from "./params.ts";
import { createReads } from "./reads.ts";

const itemsRoute = defineRoute({
  method: "get",
  access: "public",
  path: "/api/things/{id}/items",
  tag: "test",
  summary: "items",
  params: z.object({ id: tokenRefParam }),
  query: pageQuery,
  response: z.object({}),
});
const overviewRoute = defineRoute({
  method: "get",
  access: "public",
  path: "/api/things",
  tag: "test",
  summary: "overview",
  response: z.object({}),
});

function setup(log: (message: string, error: unknown) => void = () => {}) {
  const reads = createReads();
  const serve = createRouteServer();
  const things = new OpenAPIHono();
  reads.serve(serve, things, "/api/things", itemsRoute, async ({ params, query }) => {
    if (params.id === "404") throw notFound("no such thing");
    return { id: params.id, ...query, at: undefined };
  });
  reads.serve(serve, things, "/api/things", overviewRoute, async () => {
    throw new Error("boom");
  });
  const app = new OpenAPIHono().route("/api/things", things);
  app.onError(errorHandler({ log }));
  const local = reads.localFor({ limiter: createRateLimiter({ limit: 5 }), ip: "10.0.0.1", log });
  const rest = async (path: string) => {
    const response = await app.request(path);
    return { status: response.status, body: await response.json() };
  };
  return { local, rest };
}

describe("createReads", () => {
  it("answers in process what the REST route answers, input parsed by the route's schemas", async () => {
    const { local, rest } = setup();
    const answer = await local("/api/things/0xAbCdEf0123456789aBCDEF0123456789abcDEF01/items", { pageSize: "5" });
    assert.deepEqual(answer, {
      ok: true,
      body: { id: "0xAbCdEf0123456789aBCDEF0123456789abcDEF01", page: 1, pageSize: 5, at: undefined },
    });
    const { body } = await rest("/api/things/0xAbCdEf0123456789aBCDEF0123456789abcDEF01/items?pageSize=5");
    assert.deepEqual(JSON.parse(JSON.stringify(answer?.ok && answer.body)), body);
    // Path parameters are decoded, as Hono decodes them.
    assert.deepEqual(await local("/api/things/7%38/items", {}), {
      ok: true,
      body: { id: "78", page: 1, pageSize: 20, at: undefined },
    });
  });

  it("refuses as REST does, with its code and message", async () => {
    const { local, rest } = setup();
    for (const [path, query, url] of [
      ["/api/things/1/items", { pageSize: "101" }, "/api/things/1/items?pageSize=101"],
      ["/api/things/not-a-token/items", {}, "/api/things/not-a-token/items"],
      ["/api/things/404/items", {}, "/api/things/404/items"],
    ] as const) {
      const answer = await local(path, query);
      const { body } = await rest(url);
      assert.deepEqual(answer, { ok: false, error: body }, url);
    }
  });

  it("leaves a path none of its reads has to HTTP", () => {
    const { local } = setup();
    for (const path of ["/api/things/1", "/api/things/1/items/2", "/api/other", "/api/things/"])
      assert.equal(local(path, {}), undefined, path);
  });

  it("spends the client's quota, and answers an unexpected error as INTERNAL, logged", async () => {
    const logged: string[] = [];
    const { local } = setup((message) => logged.push(message));
    assert.deepEqual(await local("/api/things", {}), {
      ok: false,
      error: { code: "INTERNAL", message: "Internal error" },
    });
    assert.equal(logged.length, 1);
    for (let i = 0; i < 4; i++) assert.equal((await local("/api/things/1/items", {}))?.ok, true);
    const limited = await local("/api/things/1/items", {});
    assert.equal(limited?.ok === false && limited.error.code, "RATE_LIMITED");
  });
});
