import assert from "node:assert/strict";
import { type AnyColumn, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, it } from "vitest";
import { proposal, vote } from "../../indexer/schema.ts";
import { createTestDatabase, type TestDatabase } from "../../support/api/database.ts";
import { addressOf, hashOf, insertToken, setChainHead } from "../../support/api/fixtures.ts";
import { createEcosystemApi } from "../index.ts";
import { EXECUTION_WINDOW, proposalState, type TallyInput, tallyOf } from "./index.ts";
import { proposalDetailRoute, workerProposalsRoute } from "./proposals-routes.ts";

// The proposal reads: state and tally as WorkerVoting computes them, the worker's list (filters,
// pages, newest first) and one proposal with its votes, on the indexed schema.

const NOW = 2_000_000_000;
const DAY = 86_400;
const HOUR = 3_600;
const E18 = 10n ** 18n;
/** Quorum of the fixtures: 100 whole tokens; passing threshold 50%. */
const QUORUM = 100n * E18;

type Db = TestDatabase["db"];

interface ProposalFixture {
  id: number;
  workerId?: bigint;
  proposedAt: number;
  startTime: number;
  endTime: number;
  executedAt?: number;
  yes?: bigint;
  no?: bigint;
  abstain?: bigint;
  quorum?: bigint;
  passingThresholdBps?: number;
}

/** A proposal row as the ProposalCreated handler writes it, with a tally set directly. */
async function insertProposal(db: Db, p: ProposalFixture) {
  const workerId = p.workerId ?? 1n;
  await db.insert(proposal).values({
    id: BigInt(p.id),
    workerId,
    token: addressOf(Number(workerId)),
    proposer: addressOf(600 + p.id),
    proposedAt: p.proposedAt,
    startTime: p.startTime,
    endTime: p.endTime,
    quorumThreshold: p.quorum ?? QUORUM,
    passingThresholdBps: p.passingThresholdBps ?? 5000,
    slippageCapBps: 40 + p.id,
    mevProtection: "private_relay",
    signalSubscriptions: ["price", `signal-${p.id}`],
    description: `proposal ${p.id}`,
    yesWeight: p.yes ?? 0n,
    noWeight: p.no ?? 0n,
    abstainWeight: p.abstain ?? 0n,
    voteCount: 0,
    executedAt: p.executedAt ?? null,
    txHash: hashOf(30_000 + p.id),
  });
}

/** A vote as the VoteCast handler records it: the row, the tally and the vote count. */
async function insertVote(
  db: Db,
  v: { voteId: number; proposalId: number; voter: number; support: "yes" | "no" | "abstain"; weight: bigint },
) {
  await db.insert(vote).values({
    voteId: BigInt(v.voteId),
    proposalId: BigInt(v.proposalId),
    voter: addressOf(v.voter),
    support: v.support,
    weight: v.weight,
    comment: `comment ${v.voteId}`,
    relayed: v.voteId % 2 === 0,
    votedAt: NOW - DAY + v.voteId,
    blockNumber: BigInt(v.voteId),
    logIndex: 0,
    txHash: hashOf(40_000 + v.voteId),
  });
  const add = (column: AnyColumn, support: string) =>
    sql`${column} + ${v.support === support ? v.weight.toString() : "0"}::numeric`;
  await db
    .update(proposal)
    .set({
      yesWeight: add(proposal.yesWeight, "yes"),
      noWeight: add(proposal.noWeight, "no"),
      abstainWeight: add(proposal.abstainWeight, "abstain"),
      voteCount: sql`${proposal.voteCount} + 1`,
    })
    .where(eq(proposal.id, BigInt(v.proposalId)));
}

const passing = { yes: 80n * E18, no: 20n * E18 };
const tally = (t: Partial<TallyInput>): TallyInput => ({
  yesWeight: 0n,
  noWeight: 0n,
  abstainWeight: 0n,
  quorumThreshold: QUORUM,
  passingThresholdBps: 5000,
  ...t,
});

describe("tallyOf", () => {
  it("shows weights and quorum in whole tokens and the threshold as a fraction", () => {
    assert.deepEqual(
      tallyOf(
        tally({
          yesWeight: 1_500n * 10n ** 15n,
          noWeight: E18 / 4n,
          abstainWeight: 98n * E18,
          passingThresholdBps: 6667,
        }),
      ),
      {
        yesWeight: 1.5,
        noWeight: 0.25,
        abstainWeight: 98,
        quorumThreshold: 100,
        quorumReached: false,
        passingThreshold: 0.6667,
        currentlyPassing: false,
      },
    );
  });

  it("reaches quorum at exactly the threshold, abstentions included, not one base unit below", () => {
    assert.equal(tallyOf(tally({ yesWeight: 60n * E18, abstainWeight: 40n * E18 })).quorumReached, true);
    assert.equal(tallyOf(tally({ yesWeight: 60n * E18, abstainWeight: 40n * E18 - 1n })).quorumReached, false);
    // All yes but short of quorum: not passing.
    assert.equal(tallyOf(tally({ yesWeight: QUORUM - 1n })).currentlyPassing, false);
    assert.equal(tallyOf(tally({ yesWeight: QUORUM })).currentlyPassing, true);
  });

  it("passes only strictly above the threshold, on exact base units", () => {
    // 50 / 100 = 50%: not above 50%.
    assert.equal(tallyOf(tally({ yesWeight: 50n * E18, noWeight: 50n * E18 })).currentlyPassing, false);
    // One base unit more yes: above. The numbers still show 50 and 50 (nearest doubles).
    const above = tallyOf(tally({ yesWeight: 50n * E18 + 1n, noWeight: 50n * E18 }));
    assert.deepEqual([above.currentlyPassing, above.yesWeight, above.noWeight], [true, 50, 50]);
    // 2/3 against 6667 bps: 66.66...% is below 66.67%.
    assert.equal(
      tallyOf(tally({ yesWeight: 200n * E18, noWeight: 100n * E18, passingThresholdBps: 6667 })).currentlyPassing,
      false,
    );
  });

  it("is not passing with quorum reached by abstentions alone (no decided weight)", () => {
    const t = tallyOf(tally({ abstainWeight: 500n * E18, passingThresholdBps: 0 }));
    assert.deepEqual([t.quorumReached, t.currentlyPassing], [true, false]);
    // Threshold 0: any yes weight passes, none does not.
    assert.equal(tallyOf(tally({ yesWeight: 1n, noWeight: QUORUM, passingThresholdBps: 0 })).currentlyPassing, true);
    assert.equal(tallyOf(tally({ noWeight: QUORUM, passingThresholdBps: 0 })).currentlyPassing, false);
  });

  it("takes IWorkerVoting.Tally as getTally returns it (bigint bps)", () => {
    assert.equal(tallyOf(tally({ ...passingTally(), passingThresholdBps: 5000n })).passingThreshold, 0.5);
  });
});

function passingTally() {
  return { yesWeight: passing.yes, noWeight: passing.no };
}

describe("proposalState", () => {
  const p = { proposedAt: 1_000, startTime: 4_600, endTime: 10_000, executedAt: null, ...tally(passingTally()) };

  it("is pending before startTime, active from startTime until endTime, closed from endTime", () => {
    assert.equal(proposalState(p, p.proposedAt, null), "pending");
    assert.equal(proposalState(p, p.startTime - 1, null), "pending");
    assert.equal(proposalState(p, p.startTime, null), "active");
    assert.equal(proposalState(p, p.endTime - 1, null), "active");
    assert.equal(proposalState(p, p.endTime, null), "succeeded");
    assert.equal(proposalState({ ...p, yesWeight: 0n }, p.endTime, null), "defeated");
  });

  it("is executed once executed, whatever the time and tally", () => {
    assert.equal(proposalState({ ...p, executedAt: p.endTime + 5 }, p.endTime + 5, null), "executed");
    assert.equal(
      proposalState({ ...p, executedAt: p.endTime + 5, yesWeight: 0n }, p.endTime + 99 * DAY, null),
      "executed",
    );
  });

  it("expires EXECUTION_WINDOW after endTime unless executed", () => {
    assert.equal(EXECUTION_WINDOW, 7 * DAY);
    assert.equal(proposalState(p, p.endTime + EXECUTION_WINDOW - 1, null), "succeeded");
    assert.equal(proposalState(p, p.endTime + EXECUTION_WINDOW, null), "expired");
    // A defeated proposal stays defeated.
    assert.equal(proposalState({ ...p, noWeight: QUORUM }, p.endTime + EXECUTION_WINDOW, null), "defeated");
  });

  it("is superseded when another proposal of the worker was executed after this one was made", () => {
    assert.equal(proposalState(p, p.endTime, p.proposedAt + 1), "superseded");
    assert.equal(proposalState(p, p.endTime + EXECUTION_WINDOW, p.proposedAt + 1), "superseded");
    assert.equal(proposalState(p, p.endTime, p.proposedAt), "succeeded");
    // Superseded only applies to a passing proposal once closed.
    assert.equal(proposalState(p, p.endTime - 1, p.proposedAt + 1), "active");
    assert.equal(proposalState({ ...p, yesWeight: 0n }, p.endTime, p.proposedAt + 1), "defeated");
  });
});

describe("proposal endpoints", () => {
  let database: TestDatabase;
  let app: ReturnType<typeof createEcosystemApi>;
  /** The same app with its wall clock at `at` (the chain head stays behind it). */
  const appAt = (at: number) => createEcosystemApi({ db: database.db, now: () => at, rateLimitPerMinute: 10_000 });

  async function get(path: string, on = app) {
    const res = await on.request(path);
    return { status: res.status, body: (await res.json()) as any };
  }
  const ids = (body: any) => body.items.map((p: any) => p.proposalId);

  beforeAll(async () => {
    database = await createTestDatabase();
    const db = database.db;
    await insertToken(db, { n: 1, symbol: "ALPHA", spawnedAt: NOW - 60 * DAY });
    await insertToken(db, { n: 2, symbol: "BETA", spawnedAt: NOW - 60 * DAY });
    // Worker 1's proposals, oldest first (ids grow with time), one in each state at NOW.
    await insertProposal(db, {
      id: 1,
      proposedAt: NOW - 20 * DAY,
      startTime: NOW - 19 * DAY,
      endTime: NOW - 16 * DAY,
      executedAt: NOW - 15 * DAY,
      ...passing,
    });
    // Made before proposal 1 was executed: superseded.
    await insertProposal(db, {
      id: 2,
      proposedAt: NOW - 17 * DAY,
      startTime: NOW - 16 * DAY,
      endTime: NOW - 13 * DAY,
      ...passing,
    });
    // Passed, never executed, window over.
    await insertProposal(db, {
      id: 3,
      proposedAt: NOW - 14 * DAY,
      startTime: NOW - 13 * DAY,
      endTime: NOW - 10 * DAY,
      ...passing,
    });
    await insertProposal(db, {
      id: 4,
      proposedAt: NOW - 6 * DAY,
      startTime: NOW - 5 * DAY,
      endTime: NOW - 2 * DAY,
      ...passing,
    });
    // Quorum not reached.
    await insertProposal(db, {
      id: 5,
      proposedAt: NOW - 5 * DAY,
      startTime: NOW - 4 * DAY,
      endTime: NOW - DAY,
      yes: 99n * E18,
    });
    await insertProposal(db, { id: 6, proposedAt: NOW - 2 * DAY, startTime: NOW - DAY, endTime: NOW + DAY });
    await insertProposal(db, { id: 7, proposedAt: NOW - HOUR, startTime: NOW + HOUR, endTime: NOW + 4 * DAY });
    // Worker 2's: never in worker 1's list.
    await insertProposal(db, {
      id: 8,
      workerId: 2n,
      proposedAt: NOW - 2 * DAY,
      startTime: NOW - DAY,
      endTime: NOW + DAY,
    });
    // Votes on proposal 6: 60 + 1.5 + 0.000000000000000001 yes, 30 no, 10 abstain.
    await insertVote(db, { voteId: 1, proposalId: 6, voter: 901, support: "yes", weight: 60n * E18 });
    await insertVote(db, { voteId: 2, proposalId: 8, voter: 901, support: "no", weight: 5n * E18 });
    await insertVote(db, { voteId: 3, proposalId: 6, voter: 902, support: "no", weight: 30n * E18 });
    await insertVote(db, { voteId: 4, proposalId: 6, voter: 903, support: "abstain", weight: 10n * E18 });
    await insertVote(db, { voteId: 5, proposalId: 6, voter: 904, support: "yes", weight: 1_500n * 10n ** 15n });
    await insertVote(db, { voteId: 6, proposalId: 6, voter: 905, support: "yes", weight: 1n });
    await setChainHead(db, NOW - 5);
    app = appAt(NOW);
  });

  afterAll(() => database.close());

  describe("GET /api/agents/workers/:tokenId/proposals", () => {
    it("lists the worker's proposals newest first, each state derived as the contract does", async () => {
      const { status, body } = await get(`/api/agents/workers/${addressOf(1)}/proposals`);
      assert.equal(status, 200);
      assert.deepEqual([body.page, body.pageSize, body.totalItems], [1, 20, 7]);
      assert.deepEqual(
        body.items.map((p: any) => [p.proposalId, p.state, p.open]),
        [
          ["7", "pending", false],
          ["6", "active", true],
          ["5", "defeated", false],
          ["4", "succeeded", false],
          ["3", "expired", false],
          ["2", "superseded", false],
          ["1", "executed", false],
        ],
      );
      assert.deepEqual(body, (await get("/api/agents/workers/101/proposals")).body, "by NFT id as by address");
    });

    it("shows every field of a proposal", async () => {
      const { body } = await get("/api/agents/workers/101/proposals?status=open");
      assert.deepEqual(body.items, [
        {
          proposalId: "6",
          workerId: 1,
          tokenAddress: addressOf(1),
          proposer: addressOf(606),
          state: "active",
          open: true,
          proposedAt: NOW - 2 * DAY,
          startsAt: NOW - DAY,
          snapshot: NOW - DAY - 1,
          endsAt: NOW + DAY,
          executedAt: null,
          description: "proposal 6",
          config: { slippageCapBps: 46, mevProtection: "private_relay", signalSubscriptions: ["price", "signal-6"] },
          voteCount: 5,
          tally: {
            yesWeight: 61.5,
            noWeight: 30,
            abstainWeight: 10,
            quorumThreshold: 100,
            quorumReached: true,
            passingThreshold: 0.5,
            currentlyPassing: true,
          },
          txHash: hashOf(30_006),
        },
      ]);
      const executed = (await get("/api/agents/workers/101/proposals?status=closed")).body.items.at(-1);
      assert.deepEqual([executed.proposalId, executed.executedAt], ["1", NOW - 15 * DAY]);
    });

    it("filters by status: open, pending, closed", async () => {
      assert.deepEqual(ids((await get("/api/agents/workers/101/proposals?status=open")).body), ["6"]);
      assert.deepEqual(ids((await get("/api/agents/workers/101/proposals?status=pending")).body), ["7"]);
      const closed = (await get("/api/agents/workers/101/proposals?status=closed")).body;
      assert.deepEqual([ids(closed), closed.totalItems], [["5", "4", "3", "2", "1"], 5]);
      assert.deepEqual(ids((await get("/api/agents/workers/102/proposals?status=open")).body), ["8"]);
      assert.deepEqual((await get("/api/agents/workers/102/proposals?status=closed")).body.totalItems, 0);
    });

    it("counts open proposals as the worker detail counts activeProposals", async () => {
      for (const at of [NOW, NOW + HOUR, NOW + DAY]) {
        const on = appAt(at);
        const detail = (await get("/api/agents/workers/101", on)).body;
        const open = (await get("/api/agents/workers/101/proposals?status=open", on)).body;
        assert.equal(open.totalItems, detail.votes.activeProposals, `at NOW + ${at - NOW}`);
      }
    });

    it("pages, with an empty page past the end", async () => {
      const second = (await get("/api/agents/workers/101/proposals?page=2&pageSize=3")).body;
      assert.deepEqual([ids(second), second.page, second.pageSize, second.totalItems], [["4", "3", "2"], 2, 3, 7]);
      const third = (await get("/api/agents/workers/101/proposals?page=3&pageSize=3")).body;
      assert.deepEqual(ids(third), ["1"]);
      const past = (await get("/api/agents/workers/101/proposals?page=4&pageSize=3")).body;
      assert.deepEqual([past.items, past.totalItems], [[], 7]);
      const closedPage = (await get("/api/agents/workers/101/proposals?status=closed&page=2&pageSize=2")).body;
      assert.deepEqual([ids(closedPage), closedPage.totalItems], [["3", "2"], 5]);
    });

    it("moves a proposal from pending to open to closed at startTime and endTime", async () => {
      const start = NOW + HOUR; // proposal 7
      const end = NOW + 4 * DAY;
      const seen = [];
      for (const at of [start - 1, start, end - 1, end]) {
        const { body } = await get("/api/agents/workers/101/proposals?pageSize=1", appAt(at));
        const p = body.items[0];
        const open = ids((await get("/api/agents/workers/101/proposals?status=open", appAt(at))).body);
        seen.push([p.state, p.open, open.includes("7")]);
      }
      assert.deepEqual(seen, [
        ["pending", false, false],
        ["active", true, true],
        ["active", true, true],
        ["defeated", false, false],
      ]);
    });

    it("uses the chain head as now when the chain runs ahead of the wall clock", async () => {
      const behind = appAt(NOW - 30 * DAY);
      await setChainHead(database.db, NOW + HOUR);
      const { body } = await get("/api/agents/workers/101/proposals?status=open", behind);
      await setChainHead(database.db, NOW - 5);
      assert.deepEqual(ids(body), ["7", "6"]);
    });

    it("answers 404 for an unknown token and 400 for bad parameters", async () => {
      const unknown = await get(`/api/agents/workers/${addressOf(77)}/proposals`);
      assert.deepEqual([unknown.status, unknown.body.code], [404, "NOT_FOUND"]);
      assert.equal((await get("/api/agents/workers/999/proposals")).status, 404);
      for (const [path, param] of [
        ["/api/agents/workers/ALPHA/proposals", "tokenId"],
        ["/api/agents/workers/101/proposals?status=active", "status"],
        ["/api/agents/workers/101/proposals?pageSize=101", "pageSize"],
        ["/api/agents/workers/101/proposals?page=0", "page"],
      ] as const) {
        const { status, body } = await get(path);
        assert.deepEqual([status, body.code], [400, "INVALID_PARAM"], path);
        assert.ok(body.message.startsWith(`${param}: `), body.message);
      }
      assert.equal(
        (await get("/api/agents/workers/101/proposals?status=bogus")).body.message,
        "status: must be one of open, pending, closed",
      );
    });
  });

  describe("GET /api/agents/proposals/:proposalId", () => {
    it("shows the proposal as the list does, with its votes newest first", async () => {
      const { status, body } = await get("/api/agents/proposals/6");
      assert.equal(status, 200);
      const { votes, ...rest } = body;
      const listed = (await get("/api/agents/workers/101/proposals?status=open")).body.items[0];
      assert.deepEqual(rest, listed);
      assert.deepEqual([votes.page, votes.pageSize, votes.totalItems], [1, 20, 5]);
      assert.deepEqual(
        votes.items.map((v: any) => [v.voteId, v.vote, v.weight]),
        [
          ["6", "yes", 1e-18],
          ["5", "yes", 1.5],
          ["4", "abstain", 10],
          ["3", "no", 30],
          ["1", "yes", 60],
        ],
      );
      assert.deepEqual(votes.items[2], {
        voteId: "4",
        proposalId: "6",
        vote: "abstain",
        weight: 10,
        txHash: hashOf(40_004),
        votedAt: NOW - DAY + 4,
        voter: addressOf(903),
        comment: "comment 4",
        relayed: true,
      });
      assert.equal(votes.items[1].relayed, false);
    });

    it("answers exactly the documented schemas, votes included", async () => {
      for (const [route, path] of [
        [proposalDetailRoute, "/api/agents/proposals/6"],
        [workerProposalsRoute, "/api/agents/workers/101/proposals"],
      ] as const) {
        const { body } = await get(path);
        // Parsing strips unknown keys: equality means no field is missing, mistyped or extra.
        assert.deepEqual(route.response.parse(body), body, path);
      }
    });

    it("pages the votes", async () => {
      const { body } = await get("/api/agents/proposals/6?page=2&pageSize=3");
      assert.deepEqual(
        [body.votes.items.map((v: any) => v.voteId), body.votes.page, body.votes.pageSize, body.votes.totalItems],
        [["3", "1"], 2, 3, 5],
      );
      assert.deepEqual((await get("/api/agents/proposals/6?page=3&pageSize=3")).body.votes.items, []);
      const none = (await get("/api/agents/proposals/7")).body;
      assert.deepEqual([none.state, none.votes.items, none.votes.totalItems], ["pending", [], 0]);
    });

    it("derives the state at now (superseded, executed)", async () => {
      assert.equal((await get("/api/agents/proposals/2")).body.state, "superseded");
      assert.equal((await get("/api/agents/proposals/1")).body.state, "executed");
      assert.equal((await get("/api/agents/proposals/8")).body.workerId, 2);
    });

    it("answers 404 PROPOSAL_NOT_FOUND for an unknown id, 400 for a malformed one", async () => {
      for (const id of ["999", "0", "9".repeat(78)]) {
        const { status, body } = await get(`/api/agents/proposals/${id}`);
        assert.deepEqual([status, body.code], [404, "PROPOSAL_NOT_FOUND"], id);
      }
      for (const id of ["abc", "-1", "1.0", "0x10", "1e3", "9".repeat(79)]) {
        const { status, body } = await get(`/api/agents/proposals/${id}`);
        assert.deepEqual([status, body.code], [400, "INVALID_PARAM"], id);
        assert.equal(body.message, "proposalId: must be a proposal id (decimal digits, at most 78)");
      }
      const bad = await get("/api/agents/proposals/6?pageSize=0");
      assert.deepEqual([bad.status, bad.body.message], [400, "pageSize: must be an integer from 1 to 100"]);
    });
  });
});

describe("/openapi.json documents the proposal reads", () => {
  it("with their parameters and errors", async () => {
    const json: any = await (
      await createEcosystemApi({ db: {} as Db, rateLimitPerMinute: 10 }).request("/openapi.json")
    ).json();
    const list = json.paths["/api/agents/workers/{tokenId}/proposals"].get;
    const status = list.parameters.find((p: any) => p.name === "status");
    assert.deepEqual(status.schema.enum, ["open", "pending", "closed"]);
    assert.deepEqual(Object.keys(list.responses), ["200", "400", "404", "429", "500"]);
    const detail = json.paths["/api/agents/proposals/{proposalId}"].get;
    const id = detail.parameters.find((p: any) => p.name === "proposalId");
    assert.deepEqual([id.in, id.required, id.schema.type, id.schema.pattern], ["path", true, "string", "^\\d{1,78}$"]);
    assert.equal(detail.responses["404"].content["application/json"].example.code, "PROPOSAL_NOT_FOUND");
  });
});
