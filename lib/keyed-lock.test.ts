import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { KeyedLock } from "./keyed-lock.ts";

const tick = () => sleep(1);

describe("KeyedLock", () => {
  it("runs tasks of one key one at a time, in arrival order", async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const task = (name: string) => async () => {
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
    };
    await Promise.all([lock.run(["a"], task("1")), lock.run(["a"], task("2")), lock.run(["a"], task("3"))]);
    expect(log).toEqual(["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
    expect(lock.size()).toBe(0);
  });

  it("runs tasks of different keys at once, and waits for every key a task names", async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    let releaseA!: () => void;
    const a = lock.run(["a"], () =>
      new Promise<void>((resolve) => (releaseA = resolve)).then(() => void log.push("a")),
    );
    const b = lock.run(["b"], async () => void log.push("b"));
    const ab = lock.run(["b", "a"], async () => void log.push("ab"));
    await b;
    await tick();
    expect(log).toEqual(["b"]);
    releaseA();
    await Promise.all([a, ab]);
    expect(log).toEqual(["b", "a", "ab"]);
  });

  it("a failing task releases its keys", async () => {
    const lock = new KeyedLock();
    await expect(lock.run(["k"], async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(lock.run(["k"], async () => 7)).resolves.toBe(7);
    expect(lock.size()).toBe(0);
  });
});

describe("KeyedLock, one key", () => {
  it("runs tasks on one key in order, each after the previous finished, failures included", async () => {
    const lock = new KeyedLock();
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
      lock.run(["k"], step("a")),
      lock.run(["k"], step("b", true)),
      lock.run(["k"], step("c")),
    ]);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(lock.size()).toBe(0);
  });
});
