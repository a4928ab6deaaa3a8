import { describe, it } from "vitest";
import assert from "node:assert/strict";
import { MEV_PROTECTIONS, nameOf, POOL_SIDES, TIERS, WORKER_STATUSES } from "./enums.ts";

describe("nameOf", () => {
  it("maps contract enum values to API names in declaration order", () => {
    assert.equal(nameOf(POOL_SIDES, 1), "WRAPPED_NATIVE");
    assert.equal(nameOf(TIERS, 3n), "queen");
    assert.equal(nameOf(WORKER_STATUSES, 2), "suspended");
    assert.equal(nameOf(MEV_PROTECTIONS, 0), "off");
  });

  it("throws on a value the contracts do not define (an ABI drift, not user input)", () => {
    assert.throws(() => nameOf(WORKER_STATUSES, 3), /unknown enum value 3/);
  });
});
