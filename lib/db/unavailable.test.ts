import { UnavailableError } from "../unavailable.ts";
import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { asUnavailable, isUnavailable, unavailable } from "./unavailable.ts";

// Which database errors are "away" (503, recover) and which are bugs (500): a wrong guess either
// hides a bug behind a 503 or turns an outage into 500s.

const serverError = (code: string) => Object.assign(new Error(`server says ${code}`), { code, severity: "ERROR" });

describe("database error classification", () => {
  it("treats lost, refused and timed-out connections as the database being away", () => {
    for (const error of [
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
      Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
      new Error("Connection terminated unexpectedly"),
      new Error("Query read timeout"),
      new Error("Connection terminated due to connection timeout"),
      serverError("08006"),
      serverError("57P01"),
    ]) {
      assert.equal(isUnavailable(error), true, error.message);
      const wrapped = asUnavailable(error);
      assert.ok(wrapped instanceof UnavailableError);
      assert.equal(wrapped.connectionLost, true, error.message);
    }
  });

  it("counts the server's own refusals (statement_timeout, too many connections) as away, but not as a lost connection", () => {
    for (const code of ["57014", "53300"]) {
      const wrapped = asUnavailable(serverError(code));
      assert.ok(wrapped instanceof UnavailableError, code);
      assert.equal(wrapped.connectionLost, false, code);
    }
  });

  it("counts a full pool (no connection came free within the connect timeout) as busy, not as a lost connection", () => {
    // pg-pool's words when every pooled connection stays busy (a read burst) past connectionTimeoutMillis.
    const wrapped = asUnavailable(new Error("timeout exceeded when trying to connect"));
    assert.ok(wrapped instanceof UnavailableError);
    assert.equal(wrapped.connectionLost, false);
  });

  it("leaves statement errors and programming errors alone: they are bugs", () => {
    for (const error of [
      serverError("23505"),
      serverError("42P01"),
      serverError("22P02"),
      new TypeError("x is undefined"),
      "a string",
    ]) {
      assert.equal(isUnavailable(error), false, String(error));
      assert.equal(asUnavailable(error), error);
    }
  });
});

describe("unavailable", () => {
  it("wraps anything, words or errors, with the database named in its message", () => {
    const words = unavailable("no answer in 5 ms", "journal database", "relayer database: ");
    assert.equal(words.dependency, "journal database");
    assert.equal(words.message, "relayer database: no answer in 5 ms");
    assert.equal(words.connectionLost, true);
    const cause = new TypeError("x is undefined");
    const wrapped = unavailable(cause, "journal database", "agent a's database: ");
    assert.equal(wrapped.message, "agent a's database: x is undefined");
    assert.equal(wrapped.cause, cause);
    assert.equal(unavailable(wrapped, "other", "other: "), wrapped);
  });
});
