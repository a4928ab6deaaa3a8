import assert from "node:assert/strict";
import { describe, it } from "vitest";
import fc from "fast-check";
import { bucketCount, bucketStart, INTERVALS, nextBucket, sourceLevel } from "./intervals.ts";

const SEED = Number(process.env.FC_SEED ?? 424242);

describe("candle intervals", () => {
  it("cuts UTC calendar months and years", () => {
    const t = Date.UTC(2026, 1, 15, 13, 47, 12, 5);
    assert.equal(bucketStart("month", t), Date.UTC(2026, 1, 1));
    assert.equal(nextBucket("month", Date.UTC(2026, 11, 1)), Date.UTC(2027, 0, 1));
    assert.equal(bucketStart("year", t), Date.UTC(2026, 0, 1));
    assert.equal(bucketStart("hour4", t), Date.UTC(2026, 1, 15, 12));
    assert.equal(bucketStart("minutes15", t), Date.UTC(2026, 1, 15, 13, 45));
    assert.equal(bucketCount("month", Date.UTC(2025, 10, 3), Date.UTC(2026, 1, 2)), 4);
  });

  it("every bucket of an interval lies inside one bucket of its source level, and buckets tile time", () => {
    console.log(`# FC_SEED=${SEED}`);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.constantFrom(...INTERVALS), (t, interval) => {
        const start = bucketStart(interval, t);
        const end = nextBucket(interval, start);
        assert.ok(start <= t && t < end);
        const level = sourceLevel(interval);
        // The source buckets never straddle the interval's boundaries.
        assert.equal(bucketStart(level, start), start);
        assert.equal(bucketStart(interval, end), end);
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });
});
