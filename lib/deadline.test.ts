import { setTimeout as sleep } from "node:timers/promises";
import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { withDeadline } from "./deadline.ts";

describe("withDeadline", () => {
  it("settles as the work does when it is in time", async () => {
    assert.equal(await withDeadline(Promise.resolve(7), 50, () => new Error("late")), 7);
    await assert.rejects(
      withDeadline(Promise.reject(new Error("own")), 50, () => new Error("late")),
      /own/,
    );
  });

  it("rejects with the given error when the work is late, and leaves its later failure unobserved", async () => {
    const late = new Promise((_, reject) => setTimeout(() => reject(new Error("after")), 30));
    await assert.rejects(
      withDeadline(late, 5, () => new RangeError("late")),
      RangeError,
    );
    await sleep(40);
  });
});
