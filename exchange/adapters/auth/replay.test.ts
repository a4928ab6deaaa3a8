import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { createReplayGuard } from "./replay.ts";

const T0 = 1_700_000_000_000;

describe("createReplayGuard", () => {
  it("claims a signature once until it expires, then forgets it", () => {
    const guard = createReplayGuard({ startedAt: T0 });
    assert.equal(guard.startedAt, T0);
    assert.equal(guard.claim("a", T0 + 30_000, T0), "claimed");
    assert.equal(guard.claim("a", T0 + 30_000, T0 + 1), "replay");
    assert.equal(guard.claim("a", T0 + 30_000, T0 + 30_000), "replay", "still valid at its last millisecond");
    assert.equal(guard.claim("b", T0 + 31_000, T0 + 30_500), "claimed");
    // A second later "a" has expired (its timestamp would be stale) and is dropped; "b" is not.
    assert.equal(guard.claim("c", T0 + 62_000, T0 + 31_000), "claimed");
    assert.equal(guard.size(), 2);
    assert.equal(guard.claim("b", T0 + 31_000, T0 + 31_000), "replay");
  });

  it("refuses new signatures when full instead of evicting unexpired ones, and says when to retry", () => {
    const guard = createReplayGuard({ startedAt: T0, maxEntries: 3 });
    for (const [i, s] of ["a", "b", "c"].entries()) assert.equal(guard.claim(s, T0 + 5_000 + i * 1000, T0), "claimed");
    assert.equal(guard.claim("d", T0 + 30_000, T0 + 1000), "full");
    assert.equal(guard.claim("a", T0 + 5_000, T0 + 1000), "replay", "a full cache still knows its entries");
    assert.equal(guard.retryAfterSeconds(T0 + 1000), 5);
    assert.equal(guard.claim("d", T0 + 30_000, T0 + 6_000), "claimed", "room once the earliest expired");
  });

  it("stays bounded under a long stream of signatures (memory follows the window)", () => {
    const guard = createReplayGuard({ startedAt: T0, maxEntries: 10_000 });
    for (let i = 0; i < 200_000; i++) {
      const now = T0 + i; // 1 000 claims per second, each valid for 2 s
      assert.equal(guard.claim(`s${i}`, now + 2_000, now), "claimed");
    }
    assert.ok(guard.size() <= 3_000, `size ${guard.size()}`);
  });
});
