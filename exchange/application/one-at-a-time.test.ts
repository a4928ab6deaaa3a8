import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { OneAtATime } from "./one-at-a-time.ts";

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe("OneAtATime", () => {
  it("runs commands on one key in order, each after the previous finished, failures included", async () => {
    const queue = new OneAtATime();
    const log: string[] = [];
    const step =
      (name: string, fails = false) =>
      async () => {
        log.push(`start ${name}`);
        await tick();
        log.push(`end ${name}`);
        if (fails) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      queue.run("k", step("a")),
      queue.run("k", step("b", true)),
      queue.run("k", step("c")),
    ]);
    assert.deepEqual(log, ["start a", "end a", "start b", "end b", "start c", "end c"]);
    assert.deepEqual(
      results.map((r) => r.status),
      ["fulfilled", "rejected", "fulfilled"],
    );
    await tick();
    assert.equal(queue.size, 0, "nothing is kept once every command finished");
  });

  it("lets commands on different keys overlap", async () => {
    const queue = new OneAtATime();
    const log: string[] = [];
    const step = (name: string) => async () => {
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
    };
    await Promise.all([queue.run("a", step("a")), queue.run("b", step("b"))]);
    assert.deepEqual(log.slice(0, 2), ["start a", "start b"]);
  });
});
