import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { eventIdOf } from "./event-id.ts";
import type { FeedEvent } from "./feed-event.ts";
import { reconcile } from "./reconcile.ts";

/** An event at [block, index] of transaction `tx` (one hex digit, repeated). */
const ev = (block: number, index: number, tx = "a"): FeedEvent => ({
  key: [block, index],
  id: eventIdOf([block, index], `0x${tx.repeat(64)}`),
  event: "x",
  data: { block, index, tx },
});
const ids = (events: FeedEvent[]) => events.map((e) => e.id);

describe("reconcile", () => {
  const sent = [ev(10, 0), ev(11, 0), ev(12, 0), ev(12, 1)];

  it("changes nothing when every sent event is still there, and sends what is new", () => {
    const { withdrawn, kept, fresh } = reconcile(sent, [...sent, ev(13, 0)], true);
    assert.deepEqual([withdrawn, ids(kept), ids(fresh)], [[], ids(sent), ids([ev(13, 0)])]);
  });

  it("withdraws a reorged suffix and sends the new branch, even at the same keys", () => {
    const branch = [ev(11, 0, "b"), ev(12, 0, "b")];
    const { withdrawn, kept, fresh } = reconcile(sent, [sent[0]!, ...branch], true);
    assert.deepEqual(ids(withdrawn), ids(sent.slice(1)));
    assert.deepEqual(ids(kept), ids(sent.slice(0, 1)));
    assert.deepEqual(ids(fresh), ids(branch));
  });

  it("withdraws everything when the database holds none of it", () => {
    const { withdrawn, kept, fresh } = reconcile(sent, [], true);
    assert.deepEqual([ids(withdrawn), kept, fresh], [ids(sent), [], []]);
  });

  it("does not judge sent events past a read cut at its limit", () => {
    const { withdrawn, kept, fresh } = reconcile(sent, [sent[0]!, ev(11, 0, "b")], false);
    assert.deepEqual(ids(withdrawn), ids([sent[1]!]));
    assert.deepEqual(ids(kept), ids([sent[0]!, sent[2]!, sent[3]!]));
    assert.deepEqual(ids(fresh), ids([ev(11, 0, "b")]));
  });

  it("never sends again an event older than the sent ones that is not replacing one", () => {
    const { fresh } = reconcile(sent.slice(1), [ev(10, 0), ...sent.slice(1)], true);
    assert.deepEqual(fresh, []);
  });
});
