import { setTimeout as sleep } from "node:timers/promises";
import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { GroupCommit } from "./group-commit.ts";

describe("GroupCommit", () => {
  it("stores the first item alone, then what arrived meanwhile together, each caller getting its own result", async () => {
    const stores: number[][] = [];
    const group = new GroupCommit(async (items: readonly number[]) => {
      stores.push([...items]);
      await sleep(5);
      return items.map((n) => n * 10);
    });
    const results = await Promise.all([1, 2, 3, 4].map((n) => group.push(n)));
    assert.deepEqual(results, [10, 20, 30, 40]);
    assert.deepEqual(stores, [[1], [2, 3, 4]]);
    assert.equal(await group.push(5), 50, "idle again: the next item is stored at once");
    assert.deepEqual(stores.at(-1), [5]);
  });

  it("fails every caller of a failed store and keeps serving later ones", async () => {
    let fail = true;
    const group = new GroupCommit(async (items: readonly string[]) => {
      if (fail) throw new Error("database away");
      return items.map((s) => s.toUpperCase());
    });
    await assert.rejects(group.push("a"), /database away/);
    fail = false;
    assert.equal(await group.push("b"), "B");
  });

  it("caps how many items one store takes", async () => {
    const sizes: number[] = [];
    const group = new GroupCommit(async (items: readonly number[]) => {
      sizes.push(items.length);
      return items;
    }, 3);
    await Promise.all(Array.from({ length: 8 }, (_, i) => group.push(i)));
    assert.deepEqual(sizes, [1, 3, 3, 1]);
  });
});
