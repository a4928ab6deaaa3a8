import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import type { NatsConnection } from "nats";
import { afterAll, beforeAll, describe, it } from "vitest";
import { connectNats } from "./nats.ts";
import { publishRevocations, watchRevocations } from "./revocations.ts";

// The whole path (a key revoked over the exchange's API ends a gateway's login) is tested in
// test/exchange/gateway-revocation.test.ts; here the re-check that covers a lost push.

const NATS_URL = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const natsUp = await connectNats(NATS_URL, "revocations-test-probe", 2_000).then(
  async (nc) => {
    await nc.close();
    return true;
  },
  () => false,
);

describe.skipIf(!natsUp)("revoked keys over NATS", () => {
  let nc: NatsConnection;
  let run = 0;
  beforeAll(async () => {
    nc = await connectNats(NATS_URL, "revocations-test");
  });
  afterAll(async () => {
    await nc?.close();
  });

  /** An exchange whose live keys are `live`, and a gateway whose logins use `logins`. */
  const setUp = (live: Set<string>, logins: string[], checkMs = 60_000) => {
    const subjectPrefix = `test-revocations-${process.pid}-${Date.now()}-${run++}`;
    const listeners: ((publicKey: string) => void)[] = [];
    const exchange = publishRevocations(nc, {
      subjectPrefix,
      onKeyRevoked: (listener) => listeners.push(listener),
      isLive: (key) => live.has(key),
    });
    const revoked: string[] = [];
    const logs: string[] = [];
    const gateway = watchRevocations(nc, {
      subjectPrefix,
      loginKeys: () => logins,
      revoke: (key) => revoked.push(key),
      checkMs,
      timeoutMs: 500,
      log: (message) => logs.push(message),
    });
    const revoke = (key: string) => {
      live.delete(key);
      for (const listener of listeners) listener(key);
    };
    return { exchange, gateway, revoked, logs, revoke, subjectPrefix };
  };

  it("ends a pushed key's logins and refuses it for a LOGIN verified before the push", async () => {
    const { exchange, gateway, revoked, revoke } = setUp(new Set(["k1", "k2"]), ["k1", "k2"]);
    await nc.flush();
    assert.equal(gateway.wasRevoked("k1"), false);
    revoke("k1");
    for (let i = 0; revoked.length === 0; i++) {
      assert.ok(i < 200, "the push arrived");
      await sleep(10);
    }
    assert.deepEqual(revoked, ["k1"]);
    assert.equal(gateway.wasRevoked("k1"), true);
    assert.equal(gateway.wasRevoked("k2"), false);
    gateway.close();
    exchange.unsubscribe();
  });

  it("finds a key revoked while its push was lost, on the next check round", async () => {
    const live = new Set(["k1", "k2", "k3"]);
    const { exchange, gateway, revoked } = setUp(live, ["k1", "k2", "k2"], 50);
    await nc.flush();
    live.delete("k2"); // revoked, and nothing pushed
    for (let i = 0; revoked.length === 0; i++) {
      assert.ok(i < 200, "a check round found it");
      await sleep(10);
    }
    assert.equal(revoked[0], "k2");
    assert.ok(!revoked.includes("k1") && !revoked.includes("k3"), "only revoked keys, only those logged in");
    assert.equal(gateway.wasRevoked("k2"), false, "no push: no LOGIN is under way with a key the exchange refuses");
    gateway.close();
    exchange.unsubscribe();
  });

  it("keeps every login while nobody answers the check, and says so once", async () => {
    const { exchange, gateway, revoked, logs } = setUp(new Set(), ["k1"], 20);
    exchange.unsubscribe(); // the exchange is away
    await nc.flush();
    await assert.rejects(gateway.check());
    // Rounds fail at once on "no responders", or after the 500 ms timeout on a NATS without it.
    for (let i = 0; logs.length === 0; i++) {
      assert.ok(i < 200, "a failed round is logged");
      await sleep(10);
    }
    await sleep(1_200);
    assert.deepEqual(revoked, [], "an unanswered check ends nothing");
    assert.equal(logs.length, 1, logs.join("\n"));
    gateway.close();
  });

  it("checks keys in chunks the exchange accepts", async () => {
    const logins = Array.from({ length: 1_200 }, (_, i) => `key-${i}`);
    const live = new Set(logins.filter((_, i) => i % 100 !== 7));
    const { exchange, gateway, revoked } = setUp(live, logins);
    await gateway.check();
    assert.deepEqual(
      revoked,
      logins.filter((_, i) => i % 100 === 7),
    );
    gateway.close();
    exchange.unsubscribe();
  });
});
