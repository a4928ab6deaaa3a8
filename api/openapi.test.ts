import assert from "node:assert/strict";
import { describe, it } from "vitest";
import type { Db } from "./db.ts";
import { API_ROUTES, createEcosystemApi, READ_ROUTES } from "./index.ts";

// The ecosystem API's /openapi.json, as the kit (lib/http) generates it from the route declarations.
const app = createEcosystemApi({ db: {} as Db, rateLimitPerMinute: 10 });
const json: any = await (await app.request("/openapi.json")).json();

/** Follows a local $ref ("#/components/..."). */
function resolve(ref: string) {
  return ref
    .slice(2)
    .split("/")
    .reduce((node: any, key) => node?.[key], json);
}

describe("/openapi.json of the ecosystem API", () => {
  it("documents every route with its method, in OpenAPI 3.1: reads GET, signed writes POST", () => {
    assert.equal(json.openapi, "3.1.0");
    assert.deepEqual(Object.keys(json.paths).sort(), [...new Set(API_ROUTES.map((r) => r.path))].sort());
    for (const route of API_ROUTES) assert.ok(json.paths[route.path][route.method], `${route.method} ${route.path}`);
    for (const route of READ_ROUTES) assert.deepEqual(route.method, "get");
    assert.deepEqual(
      API_ROUTES.filter((r) => r.method === "post").map((r) => r.path),
      [
        "/api/launchpad/spawn",
        "/api/agents/workers/{tokenId}/vote",
        "/api/agents/workers/{tokenId}/proposals",
        "/api/agents/workers/{tokenId}/operator",
      ],
    );
  });

  it("documents every SPEC.md error of the signed writes, with the signing headers", () => {
    const codesOf = (operation: any) =>
      Object.entries<any>(operation.responses).flatMap(([status, response]) =>
        status.startsWith("2")
          ? []
          : response.description.split("; ").map((d: string) => `${status} ${d.split(":")[0]}`),
      );
    const spawn = json.paths["/api/launchpad/spawn"].post;
    for (const code of [
      "400 INVALID_SYMBOL",
      "400 SYMBOL_TAKEN",
      "400 COOLDOWN_ACTIVE",
      "400 INVALID_PARAM",
      "401 UNAUTHORIZED",
      "402 INSUFFICIENT_FEE",
      "500 SPAWNER_FAILED",
      "409 IDEMPOTENCY_KEY_REUSED",
      "503 UNAVAILABLE",
    ])
      assert.ok(codesOf(spawn).includes(code), `spawn documents ${code}`);
    const vote = json.paths["/api/agents/workers/{tokenId}/vote"].post;
    for (const code of [
      "401 UNAUTHORIZED",
      "403 LEVEL_TOO_LOW",
      "403 NO_HOLDINGS",
      "404 PROPOSAL_NOT_FOUND",
      "409 ALREADY_VOTED",
      "409 PROPOSAL_CLOSED",
      "409 VOTING_NOT_STARTED",
      "429 RATE_LIMITED",
    ])
      assert.ok(codesOf(vote).includes(code), `vote documents ${code}`);
    const operator = json.paths["/api/agents/workers/{tokenId}/operator"].post;
    for (const code of ["401 UNAUTHORIZED", "403 NOT_TOKEN_OWNER", "403 NO_CHAIN_ADDRESS", "404 NOT_FOUND"])
      assert.ok(codesOf(operator).includes(code), `operator documents ${code}`);
    const headers = vote.parameters.filter((p: any) => p.in === "header");
    assert.deepEqual(
      headers.map((p: any) => p.name),
      ["API-PublicKey", "API-Signature", "API-Timestamp", "Idempotency-Key"],
    );
    // An untimestamped signature could be replayed: the writes require API-Timestamp.
    assert.deepEqual(
      headers.map((p: any) => p.required ?? false),
      [true, true, true, false],
    );
    for (const code of ["503 UNAVAILABLE", "504 TX_PENDING", "504 WRITE_PENDING"])
      assert.ok(codesOf(spawn).includes(code), `spawn documents ${code}`);
    assert.ok(spawn.requestBody.content["application/json"].schema);
    assert.ok(spawn.responses["201"]);
  });

  it("documents parameters from the validating schemas (types, ranges, defaults, enums)", () => {
    const params = json.paths["/api/agents/workers"].get.parameters;
    const byName = Object.fromEntries(params.map((p: any) => [p.name, p]));
    assert.equal(byName.pageSize.schema.type, "integer");
    assert.deepEqual([byName.pageSize.schema.minimum, byName.pageSize.schema.maximum], [1, 100]);
    assert.equal(byName.pageSize.schema.default, 20);
    assert.deepEqual(byName.status.schema.enum, ["active", "idle", "suspended"]);
    assert.equal(byName.tokenAddress.schema.pattern, "^0x[0-9a-fA-F]{40}$");
    assert.equal(byName.page.required, false);
    const tokens = json.paths["/api/launchpad/tokens"].get.parameters;
    const sort = tokens.find((p: any) => p.name === "sort");
    assert.deepEqual([sort.schema.default, sort.schema.enum], ["recent", ["recent", "volume", "tvl", "holders"]]);
    assert.equal(tokens.find((p: any) => p.name === "boosted").schema.type, "boolean");
  });

  it("marks path parameters required", () => {
    const [id] = json.paths["/api/launchpad/tokens/{id}/pool"].get.parameters;
    assert.deepEqual([id.name, id.in, id.required], ["id", "path", true]);
  });

  it("documents errors: 400 with input, 404 on lookups, 429 with Retry-After and 500 everywhere", () => {
    const overview = json.paths["/api/agents/overview"].get.responses;
    assert.deepEqual(Object.keys(overview), ["200", "429", "500"]);
    const detail = json.paths["/api/agents/workers/{tokenId}"].get.responses;
    assert.deepEqual(Object.keys(detail), ["200", "400", "404", "429", "500"]);
    assert.ok(detail["429"].headers["Retry-After"]);
    assert.ok(detail["200"].headers["RateLimit-Remaining"]);
    assert.equal(detail["404"].content["application/json"].example.code, "NOT_FOUND");
  });

  it("documents the event streams as text/event-stream, with Last-Event-ID as header and query", () => {
    for (const path of ["/api/agents/action-logs/stream", "/api/launchpad/stream"]) {
      const operation = json.paths[path].get;
      assert.deepEqual(Object.keys(operation.responses["200"].content), ["text/event-stream"], path);
      const params = operation.parameters.map((p: any) => `${p.in}:${p.name}`);
      for (const name of ["header:Last-Event-ID", "query:lastEventId"])
        assert.ok(params.includes(name), `${path} ${name}`);
      assert.ok(Object.keys(operation.responses).includes("503"), path);
    }
    const actionParams = json.paths["/api/agents/action-logs/stream"].get.parameters.map((p: any) => p.name);
    for (const name of ["tokenId", "actionType", "sourceTier", "since", "until"])
      assert.ok(actionParams.includes(name));
    assert.ok(!actionParams.includes("page"), "a stream is not paged");
    const launchpad = json.paths["/api/launchpad/stream"].get;
    const types = launchpad.parameters.find((p: any) => p.name === "types");
    assert.equal(types.schema.type, "string");
    const events = launchpad.responses["200"].content["text/event-stream"].schema.anyOf.map(
      (message: any) => message.properties.event.enum[0],
    );
    assert.deepEqual(events, ["spawn", "swap", "vote", "boost", "retract", "resync"]);
  });

  it("has only references that resolve", () => {
    const refs: string[] = [];
    JSON.stringify(json, (key, value) => {
      if (key === "$ref") refs.push(value);
      return value;
    });
    assert.ok(refs.length > 0);
    for (const ref of refs) assert.ok(resolve(ref), `${ref} resolves`);
  });

  it("gives every operation a unique id", () => {
    const ids = Object.values<any>(json.paths).flatMap((item) => Object.values<any>(item).map((op) => op.operationId));
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.includes("getAgentsWorkersByTokenId"));
  });
});
