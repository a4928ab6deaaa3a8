import assert from "node:assert/strict";
import fc from "fast-check";
import { describe, it } from "vitest";
import {
  type CrashHistory,
  DEFAULT_RESTART_POLICY,
  decideOnCrash,
  NO_CRASHES,
  type RestartPolicy,
} from "./restart-policy.ts";

const policy: RestartPolicy = DEFAULT_RESTART_POLICY;

/** Crashes `uptimes[i]` ms after each (re)start, restarting after each delay; the decisions. */
function run(p: RestartPolicy, uptimes: number[]) {
  let history: CrashHistory = NO_CRASHES;
  let now = 0;
  const decisions = [];
  for (const uptime of uptimes) {
    const startedAt = now;
    now += uptime;
    const decision = decideOnCrash(p, history, startedAt, now);
    decisions.push(decision);
    history = decision.history;
    if (!decision.restart) break;
    now += decision.delayMs;
  }
  return decisions;
}

describe("decideOnCrash", () => {
  it("a service crashing at once waits 0.5, 1, 2, 4 s, and is given up on at its fifth crash", () => {
    const decisions = run(policy, [100, 100, 100, 100, 100, 100]);
    assert.deepEqual(
      decisions.map((d) => (d.restart ? d.delayMs : "give up")),
      [500, 1000, 2000, 4000, "give up"],
    );
    assert.equal(decisions.at(-1)!.crashesInWindow, 5);
  });

  it("the delay doubles up to its cap", () => {
    const decisions = run({ ...policy, maxCrashes: 100 }, Array(9).fill(10));
    assert.deepEqual(
      decisions.map((d) => d.restart && d.delayMs),
      [500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000, 15_000],
    );
  });

  it("a service that stayed up a minute is restarted after 0.5 s again", () => {
    const decisions = run({ ...policy, maxCrashes: 100 }, [100, 100, 100, 60_000, 100]);
    assert.deepEqual(
      decisions.map((d) => d.restart && d.delayMs),
      [500, 1000, 2000, 500, 1000],
    );
    // It still counts in the window: five crashes in 67 s are too many.
    assert.equal(run(policy, [100, 100, 100, 60_000, 100]).at(-1)!.restart, false);
  });

  it("an occasional crash (one every 3 min, as an out-of-memory kill would) is restarted forever", () => {
    const decisions = run(policy, Array(50).fill(3 * 60_000));
    assert.ok(decisions.every((d) => d.restart && d.delayMs === 500));
    assert.ok(decisions.every((d) => d.crashesInWindow <= 4));
  });

  it("crashes older than the window are forgotten", () => {
    const history: CrashHistory = { crashes: [0, 1000, 2000, 3000], streak: 1 };
    const late = decideOnCrash(policy, history, policy.windowMs + 500, policy.windowMs + 1500);
    assert.deepEqual([late.restart, late.crashesInWindow], [true, 3]);
    const early = decideOnCrash(policy, history, 3500, 4000);
    assert.deepEqual([early.restart, early.crashesInWindow], [false, 5]);
  });

  it("property: every delay is within [first, max], and a service is given up on exactly at maxCrashes within the window", () => {
    const seed = Number(process.env.RESTART_POLICY_SEED ?? 20261127);
    console.log(`restart-policy property seed (RESTART_POLICY_SEED): ${seed}`);
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5 * 60_000 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 10 }),
        (uptimes, maxCrashes) => {
          const p = { ...policy, maxCrashes };
          let history: CrashHistory = NO_CRASHES;
          let now = 0;
          for (const uptime of uptimes) {
            const startedAt = now;
            now += uptime;
            const decision = decideOnCrash(p, history, startedAt, now);
            const inWindow = [...history.crashes, now].filter((at) => at > now - p.windowMs).length;
            assert.equal(decision.crashesInWindow, inWindow);
            assert.equal(decision.restart, inWindow < maxCrashes);
            if (!decision.restart) return;
            assert.ok(decision.delayMs >= p.firstDelayMs && decision.delayMs <= p.maxDelayMs);
            history = decision.history;
            now += decision.delayMs;
          }
        },
      ),
      { seed, numRuns: 300 },
    );
  });
});
