import assert from "node:assert/strict";
import { test } from "vitest";
import { percentile } from "./stats.ts";

test("nearest-rank percentiles", () => {
  const samples = Array.from({ length: 100 }, (_, i) => 100 - i);
  assert.equal(percentile(samples, 50), 50);
  assert.equal(percentile(samples, 99), 99);
  assert.equal(percentile(samples, 100), 100);
  assert.equal(percentile([7], 99), 7);
  assert.ok(Number.isNaN(percentile([], 50)));
});
