import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { errorHandler } from "./errors.ts";
import { openApiDocument } from "./openapi.ts";
import { integerParam, pageNumberQuery } from "./params.ts";
import { createRouteServer, defineRoute } from "./route.ts";

const item = defineRoute({
  method: "post",
  path: "/api/items/{id}",
  tag: "Items",
  summary: "Change one item",
  access: "signed",
  params: z.object({ id: integerParam(1, 99, "must be an integer from 1 to 99") }),
  query: pageNumberQuery(),
  body: z.strictObject({ name: z.string().min(1, "must not be empty") }),
  response: z.object({ id: z.number(), name: z.string() }),
  status: 201,
  errors: [{ status: 404, code: "NOT_FOUND", when: "no item has this id" }],
  headers: { "Cache-Control": "no-store" },
});

function appWith(options: Parameters<typeof createRouteServer>[0] = {}) {
  const serve = createRouteServer(options);
  const items = new OpenAPIHono();
  serve(items, "/api/items", item, ({ params, query, body, c }) =>
    c.json({ id: params.id, name: body.name, page: query.pageNumber }, 201),
  );
  const app = new OpenAPIHono();
  app.route("/api/items", items);
  app.onError(errorHandler());
  return app;
}

const post = (app: OpenAPIHono, path: string, body: string) =>
  app.request(path, { method: "POST", body, headers: { "Content-Type": "text/plain" } });

describe("a route served by the kit", () => {
  it("hands the handler typed, validated input (any Content-Type: the body is read as text)", async () => {
    const res = await post(appWith(), "/api/items/7?pageNumber=3", '{"name":"a"}');
    assert.equal(res.status, 201);
    assert.deepEqual(await res.json(), { id: 7, name: "a", page: 3 });
  });

  it("answers 400 INVALID_PARAM naming the parameter, query first, then path, then body", async () => {
    const app = appWith();
    const cases: [string, string, string][] = [
      ["/api/items/0?pageNumber=0", "{}", "pageNumber: Too small: expected number to be >=1"],
      ["/api/items/0", "{}", "id: must be an integer from 1 to 99"],
      ["/api/items/1", "[1]", "body: must be a JSON object"],
      ["/api/items/1", "nope", "body: must be a JSON object"],
      ["/api/items/1", '{"name":""}', "name: must not be empty"],
      ["/api/items/1?pageSize=1e1", '{"name":"a"}', "pageSize: must be an integer"],
    ];
    for (const [path, body, message] of cases) {
      const res = await post(app, path, body);
      assert.equal(res.status, 400, path);
      assert.deepEqual(await res.json(), { code: "INVALID_PARAM", message }, path);
    }
  });

  it("parses the body with the API's parser, from the bytes a signature middleware kept", async () => {
    const seen: string[] = [];
    const app = appWith({
      parseJson: (text) => {
        seen.push(text);
        return JSON.parse(text);
      },
    });
    const outer = new OpenAPIHono();
    outer.use(async (c, next) => {
      c.set("rawBody" as never, '{"name":"signed"}' as never);
      await next();
    });
    outer.route("/", app);
    const res = await post(outer, "/api/items/1", '{"name":"ignored"}');
    assert.deepEqual(await res.json(), { id: 1, name: "signed", page: 1 });
    assert.deepEqual(seen, ['{"name":"signed"}']);
  });

  it("documents the route: parameters, body, security, signing headers and every error", () => {
    const app = appWith({ sharedErrors: [{ status: 503, code: "UNAVAILABLE", when: "the database is away" }] });
    const doc: any = openApiDocument(app, { openapi: "3.0", info: { title: "t", version: "1" } });
    assert.equal(doc.openapi, "3.0.3");
    const op = doc.paths["/api/items/{id}"].post;
    assert.equal(op.operationId, "postItemsById");
    assert.deepEqual(op.security, [{ ApiKey: [], ApiSignature: [] }]);
    const names = op.parameters.map((p: any) => `${p.in}:${p.name}`);
    for (const name of ["path:id", "query:pageNumber", "query:pageSize", "header:API-Signature"])
      assert.ok(names.includes(name), name);
    assert.equal(op.parameters.find((p: any) => p.name === "id").schema.type, "integer");
    assert.equal(op.requestBody.content["application/json"].schema.additionalProperties, false);
    assert.deepEqual(Object.keys(op.responses), ["201", "400", "401", "404", "429", "500", "503"]);
    assert.equal(op.responses["201"].headers["Cache-Control"].description, "no-store");
    assert.ok(op.responses["429"].headers["Retry-After"]);
    assert.match(op.responses["404"].description, /^NOT_FOUND: no item has this id$/);
    assert.ok(doc.components.securitySchemes.ApiSignature);
    assert.ok(doc.components.schemas.Error);
  });

  it("documents an event stream: its media type and the request headers it reads", () => {
    const stream = defineRoute({
      method: "get",
      path: "/api/items/stream",
      tag: "Items",
      summary: "Item events",
      access: "public",
      requestHeaders: z.object({ "Last-Event-ID": z.string().optional() }),
      response: z.object({ event: z.literal("item"), data: z.string() }),
      responseType: "text/event-stream",
    });
    const items = new OpenAPIHono();
    createRouteServer()(items, "/api/items", stream, ({ c }) => c.text("", 200));
    const app = new OpenAPIHono().route("/api/items", items);
    const doc: any = openApiDocument(app, { openapi: "3.1", info: { title: "t", version: "1" } });
    const op = doc.paths["/api/items/stream"].get;
    assert.deepEqual(Object.keys(op.responses["200"].content), ["text/event-stream"]);
    assert.deepEqual(
      op.parameters.map((p: any) => `${p.in}:${p.name}:${p.required}`),
      ["header:Last-Event-ID:false"],
    );
  });

  it("writes OpenAPI 3.1 on request", () => {
    const doc: any = openApiDocument(appWith(), { openapi: "3.1", info: { title: "t", version: "1" } });
    assert.equal(doc.openapi, "3.1.0");
  });
});
