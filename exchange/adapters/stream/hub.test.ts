import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { Hub, type Subscriber } from "./hub.ts";

const recorder = (accept = true) => {
  const got: string[] = [];
  const subscriber: Subscriber = {
    deliver: (text) => {
      got.push(text);
      return accept;
    },
  };
  return { got, subscriber };
};

describe("Hub", () => {
  it("serialises each envelope once and delivers the same text to every subscriber of its stream", () => {
    const hub = new Hub();
    const a = recorder();
    const b = recorder();
    const other = recorder();
    hub.subscribe("X@trade", a.subscriber);
    hub.subscribe("X@trade", b.subscriber);
    hub.subscribe("Y@trade", other.subscriber);
    assert.equal(hub.publish("X@trade", { p: "1.5" }), 2);
    assert.deepEqual(a.got, ['{"stream":"X@trade","data":{"p":"1.5"}}']);
    assert.equal(a.got[0], b.got[0]);
    assert.deepEqual(other.got, []);
  });

  it("renames a stream on the wire and counts only subscribers that took the message", () => {
    const hub = new Hub();
    const slow = recorder(false);
    hub.subscribe("user:u1", slow.subscriber);
    assert.equal(hub.publish("user:u1", { e: "fill" }, "user"), 0);
    assert.deepEqual(slow.got, ['{"stream":"user","data":{"e":"fill"}}']);
  });

  it("forgets a stream with its last subscriber, and tolerates one leaving during delivery", () => {
    const hub = new Hub();
    const a = recorder();
    const leaving: Subscriber = {
      deliver: () => {
        hub.unsubscribe("S", leaving);
        return false;
      },
    };
    hub.subscribe("S", leaving);
    hub.subscribe("S", a.subscriber);
    assert.equal(hub.publish("S", 1), 1);
    assert.equal(a.got.length, 1);
    hub.unsubscribe("S", a.subscriber);
    assert.equal(hub.has("S"), false);
    assert.equal(hub.subscriberCount(), 0);
  });
});
