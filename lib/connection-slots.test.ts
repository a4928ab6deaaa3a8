import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { createConnectionSlots } from "./connection-slots.ts";

describe("createConnectionSlots", () => {
  it("refuses past the per-IP and the total limit, and takes again once a place is given back (once)", () => {
    const slots = createConnectionSlots({ perIp: 2, total: 3 });
    const a1 = slots.acquire("a");
    assert.ok(a1.ok);
    assert.ok(slots.acquire("a").ok);
    assert.deepEqual(slots.acquire("a"), { ok: false, refused: "ip" });
    assert.ok(slots.acquire("b").ok);
    assert.deepEqual(slots.acquire("c"), { ok: false, refused: "total" });
    a1.release();
    a1.release();
    assert.equal(slots.open, 2);
    assert.ok(slots.acquire("c").ok);
    assert.deepEqual(slots.acquire("d"), { ok: false, refused: "total" });
  });
});
