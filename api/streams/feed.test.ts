import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it, vi } from "vitest";
import { compareKeys, eventIdOf } from "./event-id.ts";
import type { FeedEvent, FeedSource } from "./feed-event.ts";
import { createFeed, type FeedMessage } from "./feed.ts";

/** The shared poller on a fake database (a list of events) and a fake clock. */

const POLL_MS = 250;
const ev = (block: number, index = 0, tx = "a"): FeedEvent => ({
  key: [block, index],
  id: eventIdOf([block, index], `0x${tx.repeat(64)}`),
  event: "x",
  data: { block, index, tx },
});

class FakeTable {
  events: FeedEvent[] = [];
  reads = 0;
  /** When set, reads never answer (a database that hangs). */
  hang = false;
  readonly source: FeedSource = {
    after: (key, limit) =>
      this.answer(() => this.events.filter((e) => key === null || compareKeys(e.key, key) > 0).slice(0, limit)),
    newest: (limit) => this.answer(() => this.events.slice(-limit)),
  };

  add(...events: FeedEvent[]) {
    this.events.push(...events);
    this.events.sort((a, b) => compareKeys(a.key, b.key));
  }

  /** A reorg: every event from `block` on is replaced by `branch`. */
  reorg(block: number, branch: FeedEvent[]) {
    this.events = this.events.filter((e) => e.key[0] < block);
    this.add(...branch);
  }

  private answer(rows: () => FeedEvent[]): Promise<FeedEvent[]> {
    this.reads++;
    return this.hang ? new Promise(() => {}) : Promise.resolve(rows());
  }
}

/** What a listener received, as "event <id>" / "retract <id>". */
function recorder() {
  const seen: string[] = [];
  return { seen, listener: (m: FeedMessage) => seen.push(`${m.kind} ${m.event.id}`) };
}
const said = (kind: string, ...events: FeedEvent[]) => events.map((e) => `${kind} ${e.id}`);

let table: FakeTable;
let logged: string[];
const feedOf = (options: { windowBlocks?: number; rememberMax?: number; batch?: number } = {}) =>
  createFeed({
    name: "test",
    source: table.source,
    pollMs: POLL_MS,
    windowBlocks: options.windowBlocks ?? 30,
    rememberMax: options.rememberMax,
    batch: options.batch,
    dbTimeoutMs: 1_000,
    log: (message) => logged.push(message),
  });
const poll = (times = 1) => vi.advanceTimersByTimeAsync(POLL_MS * times);

beforeEach(() => {
  vi.useFakeTimers();
  table = new FakeTable();
  logged = [];
});
afterEach(() => {
  vi.useRealTimers();
});

describe("a stream's shared poller", () => {
  it("starts at the newest event: subscribers get what is committed after they came, in order", async () => {
    table.add(ev(1), ev(2));
    const feed = feedOf();
    const a = recorder();
    const sub = feed.subscribe(a.listener);
    assert.deepEqual(await sub.position, [2, 0]);
    table.add(ev(3), ev(3, 1), ev(4));
    await poll();
    assert.deepEqual(a.seen, said("event", ev(3), ev(3, 1), ev(4)));
  });

  it("reads once per poll for all subscribers and fans each message out to every one", async () => {
    const feed = feedOf();
    const listeners = Array.from({ length: 50 }, recorder);
    const subs = listeners.map((r) => feed.subscribe(r.listener));
    await Promise.all(subs.map((s) => s.position));
    const readsBefore = table.reads;
    await poll(4);
    assert.equal(table.reads - readsBefore, 4, "one read per poll, whatever the number of subscribers");
    table.add(ev(5));
    await poll();
    for (const r of listeners) assert.deepEqual(r.seen, said("event", ev(5)));
  });

  it("runs only while someone listens, and starts afresh", async () => {
    table.add(ev(1));
    const feed = feedOf();
    const sub = feed.subscribe(() => {});
    await sub.position;
    sub.close();
    const reads = table.reads;
    await poll(10);
    assert.equal(table.reads, reads, "no reads without subscribers");
    table.add(ev(2));
    const again = feed.subscribe(() => {});
    assert.deepEqual(await again.position, [2, 0]);
    assert.equal(feed.subscribers, 1);
  });

  it("gives a late subscriber the position it joined at", async () => {
    const feed = feedOf();
    const first = feed.subscribe(() => {});
    assert.equal(await first.position, null, "an empty feed");
    table.add(ev(7));
    await poll();
    const late = recorder();
    assert.deepEqual(await feed.subscribe(late.listener).position, [7, 0]);
    table.add(ev(8));
    await poll();
    assert.deepEqual(late.seen, said("event", ev(8)));
  });

  it("reads at most `batch` new events per poll and catches up on the next ones", async () => {
    const feed = feedOf({ batch: 2 });
    const r = recorder();
    await feed.subscribe(r.listener).position;
    table.add(ev(1), ev(2), ev(3), ev(4), ev(5));
    await poll();
    assert.equal(r.seen.length, 2);
    await poll(2);
    assert.deepEqual(r.seen, said("event", ev(1), ev(2), ev(3), ev(4), ev(5)));
  });
});

describe("reorgs", () => {
  it("retract the withdrawn events, newest first, then send the new branch", async () => {
    table.add(ev(1));
    const feed = feedOf();
    const r = recorder();
    await feed.subscribe(r.listener).position;
    table.add(ev(2), ev(3), ev(3, 1));
    await poll();
    // Blocks 3 on are reorged: block 3 now holds another transaction, and block 4 follows.
    table.reorg(3, [ev(3, 0, "b"), ev(4, 0, "b")]);
    await poll();
    assert.deepEqual(r.seen, [
      ...said("event", ev(2), ev(3), ev(3, 1)),
      ...said("retract", ev(3, 1), ev(3)),
      ...said("event", ev(3, 0, "b"), ev(4, 0, "b")),
    ]);
    // And the stream goes on from the new branch.
    table.add(ev(5));
    await poll();
    assert.deepEqual(r.seen.at(-1), `event ${ev(5).id}`);
  });

  it("retract events that were indexed before the poller started, within the window", async () => {
    table.add(ev(10), ev(11), ev(12));
    const feed = feedOf({ windowBlocks: 30 });
    const r = recorder();
    await feed.subscribe(r.listener).position;
    table.reorg(11, []);
    await poll();
    assert.deepEqual(r.seen, said("retract", ev(12), ev(11)));
  });

  it("retract when the newest events vanish with nothing in their place, then send what comes", async () => {
    const feed = feedOf();
    const r = recorder();
    await feed.subscribe(r.listener).position;
    table.add(ev(1), ev(2));
    await poll();
    table.reorg(2, []);
    await poll();
    table.add(ev(2, 0, "c"));
    await poll();
    assert.deepEqual(r.seen, [
      ...said("event", ev(1), ev(2)),
      ...said("retract", ev(2)),
      ...said("event", ev(2, 0, "c")),
    ]);
  });

  it("forget events older than the window (final), and at most rememberMax", async () => {
    table.add(ev(1), ev(2));
    const feed = feedOf({ windowBlocks: 5, rememberMax: 3 });
    const r = recorder();
    await feed.subscribe(r.listener).position;
    table.add(ev(10), ev(11), ev(12), ev(13));
    await poll();
    // Blocks 1 and 2 are final (more than 5 blocks behind 13), block 10 beyond the memory bound:
    // when a reorg of block 13 makes the poller compare what it remembers, their loss is not reported.
    table.events = table.events.filter((e) => e.key[0] > 10 && e.key[0] !== 13);
    table.add(ev(13, 0, "b"));
    await poll();
    assert.deepEqual(r.seen, [
      ...said("event", ev(10), ev(11), ev(12), ev(13)),
      ...said("retract", ev(13)),
      ...said("event", ev(13, 0, "b")),
    ]);
  });
});

describe("a database that fails", () => {
  it("times out a hanging read, logs once, keeps its subscribers and recovers", async () => {
    const feed = feedOf();
    const r = recorder();
    await feed.subscribe(r.listener).position;
    table.hang = true;
    await vi.advanceTimersByTimeAsync(POLL_MS + 1_000);
    await vi.advanceTimersByTimeAsync((POLL_MS + 1_000) * 3);
    assert.equal(logged.length, 1, logged.join("\n"));
    assert.match(logged[0]!, /polling failed/);
    table.hang = false;
    table.add(ev(1));
    await vi.advanceTimersByTimeAsync(POLL_MS + 1_000);
    assert.deepEqual(r.seen, said("event", ev(1)));
    assert.match(logged[1]!, /recovered/);
    assert.equal(feed.subscribers, 1);
  });

  it("rejects a first subscriber's position when the database does not answer, and starts again later", async () => {
    table.hang = true;
    const feed = feedOf();
    const sub = feed.subscribe(() => {});
    const settled = sub.position.then(
      () => "resolved",
      (error: Error) => error.message,
    );
    await vi.advanceTimersByTimeAsync(1_000);
    assert.match(await settled, /did not answer within 1000 ms/);
    sub.close();
    table.hang = false;
    assert.equal(await feed.subscribe(() => {}).position, null);
  });

  it("keeps serving the others when one subscriber throws", async () => {
    const feed = feedOf();
    const r = recorder();
    await feed.subscribe(() => {
      throw new Error("boom");
    }).position;
    feed.subscribe(r.listener);
    table.add(ev(1));
    await poll();
    assert.deepEqual(r.seen, said("event", ev(1)));
    assert.match(logged[0]!, /a subscriber failed/);
  });
});

describe("find", () => {
  it("answers the event at a key, and nothing where another key follows", async () => {
    table.add(ev(3), ev(5, 2));
    const feed = feedOf();
    assert.equal((await feed.find([5, 2]))?.id, ev(5, 2).id);
    assert.equal(await feed.find([4, 0]), undefined);
  });
});
