import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { ApiError, errorHandler, invalidParam, notFound, rateLimited } from "./errors.ts";

function appThrowing(error: unknown, logged: unknown[] = []) {
  const app = new Hono();
  app.get("/", () => {
    throw error;
  });
  app.onError(errorHandler({ log: (_, e) => logged.push(e) }));
  return app;
}

describe("errorHandler", () => {
  it("answers an ApiError with its status, code and message", async () => {
    const res = await appThrowing(invalidParam("pageSize", "must be an integer from 1 to 100")).request("/");
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), {
      code: "INVALID_PARAM",
      message: "pageSize: must be an integer from 1 to 100",
    });
  });

  it("sends an ApiError's headers (Retry-After of a 429)", async () => {
    const res = await appThrowing(rateLimited(17)).request("/");
    assert.equal(res.status, 429);
    assert.equal(res.headers.get("retry-after"), "17");
    assert.equal(((await res.json()) as { code: string }).code, "RATE_LIMITED");
    const why = await appThrowing(rateLimited(3, "Too many timestamped requests in flight")).request("/");
    assert.equal(why.headers.get("retry-after"), "3");
    assert.deepEqual(await why.json(), { code: "RATE_LIMITED", message: "Too many timestamped requests in flight" });
  });

  it("answers 404 NOT_FOUND", async () => {
    const res = await appThrowing(notFound("No agent token 7")).request("/");
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { code: "NOT_FOUND", message: "No agent token 7" });
  });

  it("maps Hono's client errors to codes", async () => {
    const res = await appThrowing(new HTTPException(400, { message: "Malformed JSON in request body" })).request("/");
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { code: "INVALID_PARAM", message: "Malformed JSON in request body" });
  });

  it("hides unexpected errors behind 500 INTERNAL and logs them", async () => {
    const logged: unknown[] = [];
    const secret = new Error("connection to 10.0.0.5:5432 refused");
    const res = await appThrowing(secret, logged).request("/");
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { code: "INTERNAL", message: "Internal error" });
    assert.deepEqual(logged, [secret]);
  });

  it("lets the app classify third-party errors as client errors", async () => {
    const app = new Hono();
    app.get("/", () => {
      throw new SyntaxError("Unexpected token 'x'");
    });
    app.onError(
      errorHandler({ classify: (e) => (e instanceof SyntaxError ? invalidParam("sql", "is not valid") : undefined) }),
    );
    const res = await app.request("/");
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { code: "INVALID_PARAM", message: "sql: is not valid" });
  });

  it("is an Error with a stable code", () => {
    const error = new ApiError(409, "ALREADY_VOTED", "already voted");
    assert.ok(error instanceof Error);
    assert.equal(error.code, "ALREADY_VOTED");
    assert.equal(error.status, 409);
  });
});
