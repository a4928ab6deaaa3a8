import { describe, it } from "vitest";
import assert from "node:assert/strict";
import { stringToHex } from "viem";
import { decodePayload } from "./payload.ts";

describe("decodePayload", () => {
  it("decodes a UTF-8 JSON object", () => {
    assert.deepEqual(decodePayload(stringToHex('{"side":"buy","note":"ünïcode"}')), { side: "buy", note: "ünïcode" });
  });

  it("gives null for empty bytes, invalid JSON and JSON that is not an object", () => {
    for (const text of ["", "not json", "[1,2]", "42", "null", '"text"']) {
      assert.equal(decodePayload(stringToHex(text)), null, text);
    }
    assert.equal(decodePayload("0xff"), null);
  });
});
