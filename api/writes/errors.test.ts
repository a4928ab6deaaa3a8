import { describe, expect, it } from "vitest";
import { SPAWN_ERRORS, VOTE_ERRORS, WRITE_ERRORS } from "./errors.ts";

describe("write errors", () => {
  it("keep SPEC.md's statuses", () => {
    expect(WRITE_ERRORS).toMatchObject({
      UNAUTHORIZED: 401,
      LEVEL_TOO_LOW: 403,
      NO_HOLDINGS: 403,
      PROPOSAL_NOT_FOUND: 404,
      ALREADY_VOTED: 409,
      PROPOSAL_CLOSED: 409,
      INVALID_SYMBOL: 400,
      SYMBOL_TAKEN: 400,
      COOLDOWN_ACTIVE: 400,
      INSUFFICIENT_FEE: 402,
      SPAWNER_FAILED: 500,
    });
  });

  it("document each route's codes once, with the table's status", () => {
    for (const list of [SPAWN_ERRORS, VOTE_ERRORS]) {
      expect(new Set(list.map((e) => e.code)).size).toBe(list.length);
      for (const e of list) expect(e.status).toBe(WRITE_ERRORS[e.code as keyof typeof WRITE_ERRORS]);
    }
  });
});
