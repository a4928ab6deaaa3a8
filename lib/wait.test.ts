import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { waitFor } from "./wait.ts";

describe("waitFor", () => {
  it("returns the first value that is not undefined or false; a throw counts as not yet", async () => {
    let tries = 0;
    const value = await waitFor(
      "the third try",
      () => {
        tries++;
        if (tries === 1) throw new Error("refused");
        return tries === 3 ? "ready" : false;
      },
      { intervalMs: 1 },
    );
    assert.equal(value, "ready");
    assert.equal(tries, 3);
  });

  it("gives up after timeoutMs, naming what it waited for, the last error and the context", async () => {
    await assert.rejects(
      waitFor(
        "nothing",
        () => {
          throw new Error("still refused");
        },
        { timeoutMs: 20, intervalMs: 5, context: () => "the log" },
      ),
      /^Error: timed out after 20 ms waiting for nothing \(last error: still refused\)\nthe log$/,
    );
  });

  it("ends at once with what stopIf throws", async () => {
    await assert.rejects(
      waitFor("never", () => false, {
        stopIf: () => {
          throw new Error("it exited");
        },
      }),
      /it exited/,
    );
  });
});
