import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { decimalJson, JsonNumber, parseJsonExact } from "./json.ts";

describe("exact JSON", () => {
  it("keeps the source text of every number", () => {
    const parsed = parseJsonExact('{"amount":0.1000000000000000000001,"n":[1,2.50],"s":"3"}') as Record<
      string,
      unknown
    >;
    assert.ok(parsed.amount instanceof JsonNumber);
    assert.equal((parsed.amount as JsonNumber).text, "0.1000000000000000000001");
    assert.deepEqual(
      (parsed.n as JsonNumber[]).map((n) => n.text),
      ["1", "2.50"],
    );
    assert.equal(parsed.s, "3");
  });

  it("writes decimals digit for digit", () => {
    assert.equal(
      JSON.stringify({ p: decimalJson("123456789.123456789123456789") }),
      '{"p":123456789.123456789123456789}',
    );
    assert.equal(JSON.stringify([decimalJson("-0.5"), decimalJson("7")]), "[-0.5,7]");
    assert.equal(
      JSON.stringify([decimalJson("0.5000"), decimalJson("10.00"), decimalJson("100"), decimalJson("0.000")]),
      "[0.5,10,100,0]",
    );
    assert.throws(() => decimalJson("1e5"));
    assert.throws(() => decimalJson(""));
  });
});
