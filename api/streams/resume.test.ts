import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { createConnectionGuard } from "./connection-guard.ts";
import { type ChainKey, compareKeys, eventIdOf } from "./event-id.ts";
import type { FeedEvent } from "./feed-event.ts";
import type { Feed } from "./feed.ts";
import { LiveFilter, resume } from "./resume.ts";

const ev = (block: number, tx = "a"): FeedEvent => ({
  key: [block, 0],
  id: eventIdOf([block, 0], `0x${tx.repeat(64)}`),
  event: "x",
  data: {},
});

/** A feed whose database holds `events` (only find and read are used by a catch-up). */
function feedHolding(events: FeedEvent[]): Feed {
  return {
    subscribe: () => assert.fail("not used"),
    find: async (key) => events.find((e) => compareKeys(e.key, key) === 0),
    read: (_what, query) => query(),
    subscribers: 0,
  };
}
const replayOf =
  (events: FeedEvent[]) =>
  async (after: ChainKey, upTo: ChainKey, limit: number): Promise<FeedEvent[]> =>
    events.filter((e) => compareKeys(e.key, after) > 0 && compareKeys(e.key, upTo) <= 0).slice(-limit);

describe("a reconnecting client's catch-up", () => {
  const chain = [1, 2, 3, 4, 5].map((block) => ev(block));
  const input = (lastEventId: string, position: ChainKey | null, replayMax = 10) => ({
    feed: feedHolding(chain),
    replay: replayOf(chain),
    lastEventId,
    position,
    replayMax,
  });

  it("replays what followed its last event up to the poller's position", async () => {
    const { opening } = await resume(input(chain[1]!.id, [4, 0]));
    assert.deepEqual(
      opening.map((m) => (m.kind === "event" ? m.event.id : m.kind)),
      [chain[2]!.id, chain[3]!.id],
    );
  });

  it("sends the newest replayMax after a replay_limit notice", async () => {
    const { opening } = await resume(input(chain[0]!.id, [5, 0], 2));
    assert.deepEqual(opening[0], {
      kind: "resync",
      reason: "replay_limit",
      detail: { lastEventId: chain[0]!.id, replayedFrom: chain[3]!.id, replayMax: 2 },
    });
    assert.equal(opening.length, 3);
  });

  it("says unknown_last_event_id for an event replaced at its key", async () => {
    const { opening } = await resume(input(ev(3, "b").id, [5, 0]));
    assert.deepEqual(opening, [
      { kind: "resync", reason: "unknown_last_event_id", detail: { lastEventId: ev(3, "b").id } },
    ]);
  });
});

describe("LiveFilter", () => {
  const event = (e: FeedEvent) => ({ kind: "event" as const, event: e });
  const retract = (e: FeedEvent) => ({ kind: "retract" as const, event: e });

  it("drops live events the catch-up sent already (a reorg raced it), once past the position it forgets", () => {
    const live = new LiveFilter([ev(3, "b"), ev(4, "b")], null, [4, 0]);
    assert.equal(live.pass(retract(ev(3))), true, "the old branch's retraction goes through");
    assert.equal(live.pass(event(ev(3, "b"))), false);
    assert.equal(live.pass(event(ev(4, "b"))), false);
    assert.equal(live.pass(event(ev(5))), true);
  });

  it("lets an event withdrawn and re-added through again", () => {
    const live = new LiveFilter([ev(3)], null, [3, 0]);
    assert.equal(live.pass(retract(ev(3))), true);
    assert.equal(live.pass(event(ev(3))), true);
  });

  it("skips what a client ahead of the poller has, until something newer or a retraction", () => {
    const live = new LiveFilter([], [4, 0], null);
    assert.equal(live.pass(event(ev(3))), false);
    assert.equal(live.pass(event(ev(4))), false);
    assert.equal(live.pass(event(ev(5))), true);
    assert.equal(live.pass(event(ev(4, "c"))), true, "the skip ended");
  });
});

describe("the connection guard", () => {
  it("bounds streams per IP and in all, and frees a place once", () => {
    const guard = createConnectionGuard({ perIp: 2, total: 3 });
    const a1 = guard.acquire("a");
    guard.acquire("a");
    assert.throws(() => guard.acquire("a"), { status: 429, code: "RATE_LIMITED" });
    guard.acquire("b");
    assert.throws(() => guard.acquire("c"), { status: 503, code: "UNAVAILABLE" });
    a1();
    a1();
    assert.equal(guard.open, 2);
    guard.acquire("c");
    assert.equal(guard.open, 3);
  });
});
