import assert from "node:assert/strict";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../lib/http/index.ts";
import { UnavailableError } from "../../../lib/unavailable.ts";
import { journalledOutcome, outcomeOfJournal, rejection, WRITE_CODES, type WriteOutcome } from "../outcome.ts";
import { httpAnswerOf, httpErrorOf, SPAWN_ERRORS, VOTE_ERRORS, WRITE_STATUS } from "./statuses.ts";

/** An outcome's answer as its client reads it: status, headers that matter, and the exact body text. */
function wire(outcome: WriteOutcome) {
  const answer = httpAnswerOf(outcome);
  return answer instanceof ApiError
    ? {
        status: answer.status,
        retryAfter: answer.headers["Retry-After"],
        text: JSON.stringify({ code: answer.code, message: answer.message }),
      }
    : { status: answer.status, retryAfter: undefined, text: JSON.stringify(answer.body) };
}

describe("write statuses", () => {
  it("keep SPEC.md's statuses", () => {
    expect(WRITE_STATUS).toMatchObject({
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
      RATE_LIMITED: 429,
      UNAVAILABLE: 503,
      TX_PENDING: 504,
      WRITE_PENDING: 504,
    });
    for (const code of WRITE_CODES) assert.ok(WRITE_STATUS[code] >= 400, code);
  });

  it("document each route's codes once, with the map's status", () => {
    for (const list of [SPAWN_ERRORS, VOTE_ERRORS]) {
      expect(new Set(list.map((e) => e.code)).size).toBe(list.length);
      for (const e of list) expect(e.status).toBe(WRITE_STATUS[e.code as keyof typeof WRITE_STATUS]);
    }
  });

  it("answer a done write 201 with its body, a rejection its status and {code, message}; every 504 and 429 with Retry-After", () => {
    assert.deepEqual(wire({ ok: true, value: { txHash: "0x1" } }), {
      status: 201,
      retryAfter: undefined,
      text: '{"txHash":"0x1"}',
    });
    assert.deepEqual(wire(rejection("SYMBOL_TAKEN", "ABC exists")), {
      status: 400,
      retryAfter: undefined,
      text: '{"code":"SYMBOL_TAKEN","message":"ABC exists"}',
    });
    assert.equal(wire(rejection("TX_PENDING", "sent")).retryAfter, "5");
    assert.equal(wire(rejection("RATE_LIMITED", "too many", 42)).retryAfter, "42");
  });

  it("answer UnavailableError 503 UNAVAILABLE with its Retry-After, else 5 s; a bug stays a bug", () => {
    const away = httpErrorOf(new UnavailableError("chain node", "no answer")) as ApiError;
    assert.deepEqual(
      [away.status, away.code, away.message, away.headers["Retry-After"]],
      [503, "UNAVAILABLE", "no answer", "5"],
    );
    const busy = httpErrorOf(new UnavailableError("signed writes", "busy", { retryAfterSeconds: 1 })) as ApiError;
    assert.equal(busy.headers["Retry-After"], "1");
    const bug = new Error("bug");
    assert.equal(httpErrorOf(bug), bug);
  });
});

describe("journalled outcomes", () => {
  const spawned = { token: { symbol: "ABC", totalSupply: "1000" }, worker: { id: 3 }, txHash: "0xab" };

  it("replay byte for byte what was answered first, done or rejected", () => {
    for (const first of [
      { ok: true, value: spawned } as const,
      rejection(
        "SPAWNER_FAILED",
        "the spawner reverted in transaction 0xab; the fee was returned; retry (transaction 0xab)",
      ),
      rejection("INTERNAL", "the vote reverted in transaction 0xcd; retry (transaction 0xcd)"),
      rejection("ALREADY_VOTED", "already voted on proposal 7 (transaction 0xef)"),
    ]) {
      const kept = journalledOutcome(first);
      assert.deepEqual(wire(outcomeOfJournal(null, kept)), wire(first), kept);
    }
  });

  it("journal no status: the code and body only", () => {
    const kept = JSON.parse(journalledOutcome(rejection("NO_HOLDINGS", "0xaa has less than 1 whole token")));
    assert.deepEqual(kept, { ok: false, code: "NO_HOLDINGS", message: "0xaa has less than 1 whole token" });
  });

  it("read rows journalled with a status (before outcomes were) as the same answer", () => {
    const doneBody = JSON.stringify(spawned);
    assert.deepEqual(wire(outcomeOfJournal(201, doneBody)), { status: 201, retryAfter: undefined, text: doneBody });
    for (const [status, code] of [
      [500, "SPAWNER_FAILED"],
      [500, "INTERNAL"],
      [409, "VOTING_NOT_STARTED"],
      [400, "SYMBOL_TAKEN"],
      [403, "NO_HOLDINGS"],
    ] as const) {
      const body = JSON.stringify({ code, message: `reverted (transaction 0x1)` });
      assert.deepEqual(wire(outcomeOfJournal(status, body)), { status, retryAfter: undefined, text: body });
    }
  });

  it("refuse a journalled code it does not know rather than answer it wrongly", () => {
    assert.throws(() => outcomeOfJournal(null, '{"ok":false,"code":"NOPE","message":"x"}'), /unknown code NOPE/);
  });
});
