import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { z } from "zod";
import { ApiError } from "./errors.ts";
import { parseInput } from "./validate.ts";

const schema = z.object({
  page: z.string().regex(/^\d+$/, { error: "must be an integer" }).optional(),
  nested: z.object({ side: z.enum(["buy", "sell"], { error: "must be buy or sell" }) }).optional(),
});

const rejection = (input: unknown) => {
  try {
    parseInput(schema, input);
  } catch (error) {
    assert.ok(error instanceof ApiError);
    return { status: error.status, code: error.code, message: error.message };
  }
  assert.fail("expected a rejection");
};

describe("parseInput", () => {
  it("returns the parsed value and drops unknown keys", () => {
    assert.deepEqual(parseInput(schema, { page: "3", extra: "x" }), { page: "3" });
  });

  it("rejects with 400 INVALID_PARAM naming the parameter", () => {
    assert.deepEqual(rejection({ page: "x" }), {
      status: 400,
      code: "INVALID_PARAM",
      message: "page: must be an integer",
    });
  });

  it("names nested parameters by their path", () => {
    assert.equal(rejection({ nested: { side: "hold" } }).message, "nested.side: must be buy or sell");
  });

  it("calls an exact parser's number object a number, and other wrong types by their JSON kind", () => {
    class ExactNumber {
      readonly text = "1";
    }
    const typed = z.object({ flag: z.boolean(), name: z.string() });
    const message = (input: unknown) => {
      try {
        parseInput(typed, input);
      } catch (error) {
        return (error as ApiError).message;
      }
      return assert.fail("expected a rejection");
    };
    assert.equal(
      message({ flag: new ExactNumber(), name: "x" }),
      "flag: Invalid input: expected boolean, received number",
    );
    assert.equal(message({ flag: true, name: [1] }), "name: Invalid input: expected string, received array");
    assert.equal(message({ flag: true, name: null }), "name: Invalid input: expected string, received null");
    assert.equal(message({ flag: true }), "name: Invalid input: expected string, received undefined");
  });

  it("names the request when the whole input is wrong", () => {
    assert.match(rejection("not an object").message, /^request: /);
  });
});
