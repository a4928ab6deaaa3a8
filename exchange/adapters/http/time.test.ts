import assert from "node:assert/strict";
import { it } from "vitest";
import { isoFromMicros, isoFromMs } from "./time.ts";

it("formats deal times with microseconds and a trailing Z", () => {
  assert.equal(isoFromMicros(1_767_225_600_123_456), "2026-01-01T00:00:00.123456Z");
  assert.equal(isoFromMicros(1_767_225_600_000_007), "2026-01-01T00:00:00.000007Z");
  assert.equal(isoFromMs(1_767_225_600_123), "2026-01-01T00:00:00.123Z");
});
