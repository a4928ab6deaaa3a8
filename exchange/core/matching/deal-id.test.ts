import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { dealId } from "./deal-id.ts";

describe("dealId", () => {
  it("is a version 5 UUID, the same for the same pair and trade, different otherwise", () => {
    const id = dealId("ALPHA_USDT", 1);
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(dealId("ALPHA_USDT", 1), id);
    assert.notEqual(dealId("ALPHA_USDT", 2), id);
    assert.notEqual(dealId("BETA_USDT", 1), id);
  });

  it("refuses a trade sequence that is not a positive integer", () => {
    assert.throws(() => dealId("ALPHA_USDT", 0), RangeError);
    assert.throws(() => dealId("ALPHA_USDT", 1.5), RangeError);
  });
});
