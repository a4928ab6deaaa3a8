import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_SPEC_PATH, SHARED_SPEC_PATH } from "./spec-path.ts";

describe("the SPEC.md the MCP server serves", () => {
  it("ships with the repository", () => {
    expect(readFileSync(DEFAULT_SPEC_PATH, "utf8")).toContain("\n# Spot Market and Agent Ecosystem API Specification");
  });

  it.skipIf(!existsSync(SHARED_SPEC_PATH))("is the specification beside the repository, unchanged", () => {
    expect(readFileSync(DEFAULT_SPEC_PATH, "utf8")).toBe(readFileSync(SHARED_SPEC_PATH, "utf8"));
  });
});
