import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { API_ROUTES } from "../index.ts";
import { openApiDocument } from "./document.ts";

const document = openApiDocument(API_ROUTES, { title: "test", version: "0" });
const json = JSON.parse(JSON.stringify(document));

/** Follows a local $ref ("#/components/..."). */
function resolve(ref: string) {
  return ref
    .slice(2)
    .split("/")
    .reduce((node: any, key) => node?.[key], json);
}

describe("openApiDocument", () => {
  it("documents every route as a GET", () => {
    assert.equal(json.openapi, "3.1.0");
    assert.deepEqual(Object.keys(json.paths).sort(), API_ROUTES.map((r) => r.path).sort());
    for (const item of Object.values<any>(json.paths)) assert.deepEqual(Object.keys(item), ["get"]);
  });

  it("documents parameters from the validating schemas (types, ranges, defaults, enums)", () => {
    const params = json.paths["/api/agents/workers"].get.parameters;
    const byName = Object.fromEntries(params.map((p: any) => [p.name, p]));
    assert.deepEqual(byName.pageSize.schema, { default: 20, type: "integer", minimum: 1, maximum: 100 });
    assert.deepEqual(byName.status.schema, { type: "string", enum: ["active", "idle", "suspended"] });
    assert.equal(byName.tokenAddress.schema.pattern, "^0x[0-9a-fA-F]{40}$");
    assert.equal(byName.page.required, false);
    const sort = json.paths["/api/launchpad/tokens"].get.parameters.find((p: any) => p.name === "sort");
    assert.deepEqual(sort.schema, { default: "recent", type: "string", enum: ["recent", "volume", "tvl", "holders"] });
    const boosted = json.paths["/api/launchpad/tokens"].get.parameters.find((p: any) => p.name === "boosted");
    assert.deepEqual(boosted.schema, { type: "boolean" });
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
    const limited = resolve(detail["429"].$ref);
    assert.ok(limited.headers["Retry-After"]);
    assert.equal(limited.content["application/json"].example.code, "RATE_LIMITED");
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
    const ids = Object.values<any>(json.paths).map((item) => item.get.operationId);
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.includes("getAgentsWorkersByTokenId"));
  });
});
