import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { mulberry32 } from "./random.ts";

describe("mulberry32", () => {
  it("replays the same sequence for a seed and a different one for another", () => {
    const take = (seed: number) => Array.from({ length: 5 }, mulberry32(seed));
    assert.deepEqual(take(42), take(42));
    assert.notDeepEqual(take(42), take(43));
  });

  it("stays in [0, 1) and spreads evenly", () => {
    const random = mulberry32(7);
    const buckets = new Array(10).fill(0);
    for (let i = 0; i < 100_000; i++) {
      const x = random();
      assert.ok(x >= 0 && x < 1);
      buckets[Math.floor(x * 10)]++;
    }
    for (const count of buckets) assert.ok(Math.abs(count - 10_000) < 500, `bucket ${count}`);
  });
});
