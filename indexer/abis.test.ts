import { describe, it } from "vitest";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { renderAbis } from "./abis-source.ts";

describe("indexer/abis.ts", () => {
  it("matches the compiled contracts (run `npm run abis` after changing a contract)", async () => {
    assert.equal(await readFile("indexer/abis.ts", "utf8"), await renderAbis());
  });
});
