import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { createRandom, randomBigInt, randomInt, seedState } from "./random.ts";

describe("createRandom", () => {
  it("replays the same sequence for the same seed", () => {
    const a = createRandom("42");
    const b = createRandom("42");
    const c = createRandom("43");
    const first = Array.from({ length: 10 }, a);
    assert.deepEqual(first, Array.from({ length: 10 }, b));
    assert.notDeepEqual(first, Array.from({ length: 10 }, c));
  });

  it("stays in [0, 1) and covers the range", () => {
    const random = createRandom("range");
    let low = 1;
    let high = 0;
    for (let i = 0; i < 10_000; i++) {
      const x = random();
      assert.ok(x >= 0 && x < 1);
      low = Math.min(low, x);
      high = Math.max(high, x);
    }
    assert.ok(low < 0.01 && high > 0.99);
  });

  it("hashes any seed text", () => {
    assert.equal(seedState(""), 0x811c9dc5);
    assert.notEqual(seedState("a"), seedState("b"));
  });
});

describe("randomInt and randomBigInt", () => {
  it("are inclusive of both ends", () => {
    const random = createRandom("ints");
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) {
      const n = randomInt(random, -2, 2);
      assert.ok(n >= -2 && n <= 2);
      seen.add(n);
    }
    assert.deepEqual([...seen].sort(), [-1, -2, 0, 1, 2]);
    const big = new Set<bigint>();
    for (let i = 0; i < 1000; i++) big.add(randomBigInt(random, 10n, 12n));
    assert.deepEqual([...big].sort(), [10n, 11n, 12n]);
  });

  it("refuse an empty range", () => {
    const random = createRandom("x");
    assert.throws(() => randomInt(random, 3, 2), RangeError);
    assert.throws(() => randomBigInt(random, 3n, 2n), RangeError);
  });
});
