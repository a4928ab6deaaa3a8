import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { waitFor } from "./wait.ts";

describe("support's waitFor", () => {
  it("fails at once when a watched process has exited, with its log tail", async () => {
    const exited = { name: "chain", running: false, describeExit: () => "exited with 1", tail: () => "last lines" };
    await assert.rejects(
      waitFor("the chain", () => false, { alive: [exited] }),
      /^Error: chain exited with 1 while waiting for the chain\nlast lines$/,
    );
  });
});
