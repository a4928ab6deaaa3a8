import { setTimeout as sleep } from "node:timers/promises";
import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { Hub, type Subscriber } from "./hub.ts";

const recorder = (accept = true) => {
  const got: string[] = [];
  const subscriber: Subscriber = {
    deliver: (bytes) => {
      got.push(bytes.toString());
      return accept;
    },
  };
  return { got, subscriber };
};

describe("Hub", () => {
  it("delivers what was published together in one buffer per subscriber, in order, shared by equal subscriptions", () => {
    const encoded: string[] = [];
    const encode = (text: string) => {
      encoded.push(text);
      return Buffer.from(`${text}|`);
    };
    const hub = new Hub({}, { encode });
    const a = recorder();
    const b = recorder();
    const other = recorder();
    for (const s of [a, b]) {
      hub.subscribe("X@trade", s.subscriber);
      hub.subscribe("X@depth", s.subscriber);
    }
    hub.subscribe("Y@trade", other.subscriber);
    hub.publish("X@trade", { p: "1.5" });
    hub.publish("Y@trade", { p: "2" });
    hub.publish("X@depth", { u: 7 });
    assert.equal(hub.flush(), 3);
    const expected = '{"stream":"X@trade","data":{"p":"1.5"}}|{"stream":"X@depth","data":{"u":7}}|';
    assert.deepEqual(a.got, [expected]);
    assert.deepEqual(b.got, [expected]);
    assert.deepEqual(other.got, ['{"stream":"Y@trade","data":{"p":"2"}}|']);
    assert.equal(encoded.length, 3, "each envelope encoded once");
    assert.equal(hub.flush(), 0, "nothing left");
  });

  it("renames a stream on the wire and counts only subscribers that took the bytes", () => {
    const hub = new Hub();
    const slow = recorder(false);
    hub.subscribe("user:u1", slow.subscriber);
    hub.publish("user:u1", { e: "fill" });
    assert.equal(hub.flush(), 0);
    assert.deepEqual(slow.got, ['{"stream":"user","data":{"e":"fill"}}']);
  });

  it("queues nothing for a stream nobody follows, and flushes by itself", async () => {
    const hub = new Hub({}, { flushMs: 1 });
    const a = recorder();
    hub.publish("nobody", 1);
    hub.subscribe("S", a.subscriber);
    hub.publish("S", 2);
    await sleep(20);
    assert.deepEqual(a.got, ['{"stream":"S","data":2}']);
  });

  it("forgets a stream with its last subscriber, and tolerates one leaving during delivery", () => {
    const firsts: string[] = [];
    const lasts: string[] = [];
    const hub = new Hub({ onFirst: (s) => firsts.push(s), onLast: (s) => lasts.push(s) });
    const a = recorder();
    const leaving: Subscriber = {
      deliver: () => {
        hub.unsubscribe("S", leaving);
        return false;
      },
    };
    hub.subscribe("S", leaving);
    hub.subscribe("S", a.subscriber);
    hub.publish("S", 1);
    assert.equal(hub.flush(), 1);
    assert.equal(a.got.length, 1);
    hub.unsubscribe("S", a.subscriber);
    assert.equal(hub.has("S"), false);
    assert.equal(hub.subscriberCount(), 0);
    assert.deepEqual([firsts, lasts], [["S"], ["S"]]);
  });
});
