import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { compareKeys, eventIdOf, eventIdParam, keyBefore, keyOfEventId } from "./event-id.ts";

describe("event ids", () => {
  it("carry the key and the transaction, and give the key back", () => {
    const id = eventIdOf([1234, 7], `0x${"2".repeat(56)}ABCDEF01`);
    assert.equal(id, "1234-7-abcdef01");
    assert.deepEqual(keyOfEventId(id), [1234, 7]);
  });

  it("order by block, then index; the key before one is read 'after' to include it", () => {
    assert.ok(compareKeys([9, 100], [10, 0]) < 0);
    assert.ok(compareKeys([10, 2], [10, 1]) > 0);
    assert.equal(compareKeys([10, 1], [10, 1]), 0);
    assert.ok(compareKeys(keyBefore([10, 0]), [10, 0]) < 0);
    assert.ok(compareKeys(keyBefore([10, 0]), [9, 1_000]) > 0);
  });

  it("are checked as the stream sent them", () => {
    assert.equal(eventIdParam.parse("1-0-00000000"), "1-0-00000000");
    for (const bad of ["", "1-0", "1-0-0000000", "1-0-0000000G", "-1-0-00000000", "1.5-0-00000000", "1-0-ABCDEF01"])
      assert.equal(eventIdParam.safeParse(bad).success, false, bad);
  });
});
