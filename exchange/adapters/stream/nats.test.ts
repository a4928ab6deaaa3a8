import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { UserInterest } from "./nats.ts";

// The NATS round trips (a LOGIN on a gateway, renewals, drops, an exchange restart) are tested
// against a real NATS in test/exchange/gateways.test.ts.

describe("UserInterest", () => {
  const at = (start: number) => {
    const clock = { now: start };
    return { clock, interest: new UserInterest({ ttlMs: 1_000, now: () => clock.now }) };
  };

  it("wants every user for one TTL after a start, then only those a gateway wants", () => {
    const { clock, interest } = at(0);
    assert.equal(interest.wants("u1"), true, "nothing is known yet of what gateways want");
    clock.now = 1_000;
    assert.equal(interest.wants("u1"), false);
    interest.want({ gateway: "g1", users: ["u1"] });
    assert.equal(interest.wants("u1"), true);
    assert.equal(interest.wants("u2"), false);
  });

  it("lets a gateway's interest expire one TTL after its last renewal", () => {
    const { clock, interest } = at(0);
    clock.now = 5_000;
    interest.want({ gateway: "g1", users: ["u1", "u2"] });
    clock.now = 5_900;
    interest.want({ gateway: "g1", users: ["u1"] }); // a renewal that no longer names u2
    clock.now = 6_000;
    assert.deepEqual([interest.wants("u1"), interest.wants("u2")], [true, false]);
    clock.now = 6_900;
    assert.equal(interest.wants("u1"), false, "a gateway that died stops counting");
    assert.equal(interest.sweep(), 0, "and is forgotten");
  });

  it("drops one gateway's interest and keeps another's", () => {
    const { clock, interest } = at(0);
    clock.now = 2_000;
    interest.want({ gateway: "g1", users: ["u1"] });
    interest.want({ gateway: "g2", users: ["u1"] });
    interest.drop({ gateway: "g1", users: ["u1"] });
    assert.equal(interest.wants("u1"), true);
    interest.drop({ gateway: "g2", users: ["u1"] });
    assert.equal(interest.wants("u1"), false);
    assert.equal(interest.sweep(), 0);
  });

  it("wants every user again for one TTL after forget (NATS came back: renewals may have been lost)", () => {
    const { clock, interest } = at(0);
    clock.now = 2_000;
    assert.equal(interest.wants("u1"), false);
    interest.forget();
    assert.equal(interest.wants("u1"), true);
    clock.now = 3_000;
    assert.equal(interest.wants("u1"), false);
  });
});
