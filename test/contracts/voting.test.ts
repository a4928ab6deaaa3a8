import { describe, it } from "vitest";
import assert from "node:assert/strict";
import { type Hash, decodeErrorResult, getAddress, keccak256, parseEventLogs, toHex, zeroHash } from "viem";
import { deployFixture, SUPPORT, spawnToken as spawnAgentToken } from "../../support/contracts/fixtures.ts";

const RELAYER_ROLE = keccak256(toHex("RELAYER_ROLE"));
const PROPOSER_ROLE = keccak256(toHex("PROPOSER_ROLE"));
const BPS = 10_000n;
const DAY = 24n * 3600n;
const STATE = { Active: 0, Defeated: 1, Succeeded: 2, Executed: 3, Superseded: 4, Pending: 5, Expired: 6 } as const;

const TOKEN = 10n ** 18n;
const TOTAL_SUPPLY = 1_000_000_000n * TOKEN;
// Alice (the spawner of ALPHA) gets nothing for free: she buys on the curve and keeps exactly this
// stake (20% of the supply), then hands out the holdings below before any proposal.
const OWNER_SHARE = (TOTAL_SUPPLY * 2_000n) / BPS;
const OWNER_BUY = 3_000n * 10n ** 6n; // mUSD: buys a little over 20% of the supply at launch
const SINK = "0x000000000000000000000000000000000000dEaD";
const BOB = 30_000_000n * TOKEN;
const CAROL = 30_000_000n * TOKEN;
const DAVE = 10_000_000n * TOKEN;
const ERIN = TOKEN; // exactly the minimum
const FRANK = TOKEN - 1n; // one wei short of it
const ALICE = OWNER_SHARE - BOB - CAROL - DAVE - ERIN - FRANK;
// Default settings: 1-day delay, 3-day period, 4% quorum, 50% passing threshold. Quorum is 4% of
// the votes that can be cast just before the proposal: Alice's stake, which she handed out (the
// pool's unsold supply and what she sent to the burn address never vote), so 8M, not 40M.
const VOTING_DELAY = DAY;
const VOTING_PERIOD = 3n * DAY;
const CIRCULATING = OWNER_SHARE;
const QUORUM = (CIRCULATING * 400n) / BPS;

const SPAWN_CONFIG = { slippageCapBps: 100, mevProtection: 1, signalSubscriptions: ["price"] };
const NEW_CONFIG = { slippageCapBps: 300, mevProtection: 2, signalSubscriptions: ["price", "funding_rate"] };

/** Expected tally flags from the rules: quorum counts all weight, passing needs yes/(yes+no) > threshold. */
function expectedTally(yes: bigint, no: bigint, abstain: bigint, quorum = QUORUM, thresholdBps = 5_000n) {
  const quorumReached = yes + no + abstain >= quorum;
  const decided = yes + no;
  return { quorumReached, currentlyPassing: quorumReached && decided > 0n && yes * BPS > decided * thresholdBps };
}

describe("WorkerVoting", async () => {
  const f = await deployFixture();
  const { voting, registry, viem, networkHelpers, publicClient } = f;
  const { time } = networkHelpers;
  const { admin, relayer, alice, bob, carol, dave } = f.wallets;
  const [, , , , , , , , erin, frank, outsider] = await viem.getWalletClients();
  type Wallet = typeof alice;

  async function spawnToken(owner: Wallet, symbol: string) {
    const { token, nftId, workerId } = await spawnAgentToken(f, owner, symbol);
    return { token: await viem.getContractAt("AgentToken", token), nftId, workerId };
  }

  /** Buys `amount` mUSD worth of `token` on its pool for `buyer`; returns what it bought. */
  async function buyOnCurve(buyer: Wallet, token: Awaited<ReturnType<typeof spawnToken>>, amount: bigint) {
    const pool = await viem.getContractAt("AgentPool", await token.token.read.pool());
    await f.stableToken.write.mint([buyer.account.address, amount], { account: buyer.account });
    await f.stableToken.write.approve([pool.address, amount], { account: buyer.account });
    const before = await token.token.read.balanceOf([buyer.account.address]);
    await pool.write.swapExactIn([f.stableToken.address, amount, 0n, buyer.account.address], {
      account: buyer.account,
    });
    return (await token.token.read.balanceOf([buyer.account.address])) - before;
  }

  async function votingFixture() {
    const alpha = await spawnToken(alice, "ALPHA");
    const beta = await spawnToken(bob, "BETA");
    const bought = await buyOnCurve(alice, alpha, OWNER_BUY);
    await alpha.token.write.transfer([SINK, bought - OWNER_SHARE], { account: alice.account });
    await buyOnCurve(bob, beta, 1_000n * 10n ** 6n);
    const gifts: [Wallet, bigint][] = [
      [bob, BOB],
      [carol, CAROL],
      [dave, DAVE],
      [erin, ERIN],
      [frank, FRANK],
    ];
    for (const [to, amount] of gifts) {
      await alpha.token.write.transfer([to.account.address, amount], { account: alice.account });
    }
    return { alpha, beta };
  }
  const load = () => networkHelpers.loadFixture(votingFixture);

  async function proposalIdOf(hash: Hash) {
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    const [event] = parseEventLogs({ abi: voting.abi, eventName: "ProposalCreated", logs: receipt.logs });
    return event.args.proposalId;
  }

  /** Proposes without waiting: the proposal stays Pending for the voting delay. */
  async function proposePending(
    proposer: Wallet,
    workerId = 1n,
    config = NEW_CONFIG,
    description = "tighten slippage",
  ) {
    return proposalIdOf(await voting.write.propose([workerId, config, description], { account: proposer.account }));
  }

  /** Proposes, then waits out the voting delay so votes are accepted. */
  async function propose(proposer: Wallet, workerId = 1n, config = NEW_CONFIG, description = "tighten slippage") {
    const id = await proposePending(proposer, workerId, config, description);
    await time.increaseTo((await voting.read.getProposal([id])).startTime);
    return id;
  }

  function vote(voter: Wallet, proposalId: bigint, support: number, comment = "") {
    return voting.write.castVote([proposalId, support, comment], { account: voter.account });
  }

  async function closeVoting(proposalId: bigint) {
    await time.increaseTo((await voting.read.getProposal([proposalId])).endTime);
  }

  describe("setup", () => {
    it("starts with the default settings and no proposals", async () => {
      await load();
      assert.deepEqual(await voting.read.settings(), [VOTING_DELAY, VOTING_PERIOD, 400, 5_000]);
      assert.equal(await voting.read.proposalCount(), 0n);
      assert.equal(await voting.read.MIN_WEIGHT(), TOKEN);
      assert.equal(await voting.read.MAX_COMMENT_BYTES(), 280n);
      assert.equal(await voting.read.hasRole([RELAYER_ROLE, relayer.account.address]), true);
      assert.equal(await voting.read.hasRole([PROPOSER_ROLE, relayer.account.address]), true);
      assert.equal(await voting.read.hasRole([RELAYER_ROLE, admin.account.address]), false);
    });

    it("gives voters their holdings as self-delegated votes", async () => {
      const { alpha } = await load();
      assert.equal(await alpha.token.read.getVotes([alice.account.address]), ALICE);
      assert.equal(await alpha.token.read.getVotes([bob.account.address]), BOB);
      assert.equal(await alpha.token.read.getVotes([frank.account.address]), FRANK);
    });
  });

  describe("propose", () => {
    it("opens a Pending proposal: voting starts after the delay, thresholds fixed from the settings", async () => {
      const { alpha } = await load();
      const proposedAt = BigInt(await time.latest()) + 100n;
      await time.setNextBlockTimestamp(proposedAt);
      const start = proposedAt + VOTING_DELAY;
      await viem.assertions.emitWithArgs(
        voting.write.propose([1n, NEW_CONFIG, "tighten slippage"], { account: bob.account }),
        voting,
        "ProposalCreated",
        [
          1n,
          1n,
          bob.account.address,
          alpha.token.address,
          proposedAt,
          start,
          start + VOTING_PERIOD,
          QUORUM,
          5_000,
          NEW_CONFIG,
          "tighten slippage",
        ],
      );
      assert.equal(await voting.read.proposalCount(), 1n);
      const p = await voting.read.getProposal([1n]);
      assert.equal(p.workerId, 1n);
      assert.equal(getAddress(p.token), getAddress(alpha.token.address));
      assert.equal(getAddress(p.proposer), getAddress(bob.account.address));
      assert.equal(p.proposedAt, proposedAt);
      assert.equal(p.startTime, start);
      assert.equal(p.endTime, start + VOTING_PERIOD);
      assert.equal(p.passingThresholdBps, 5_000);
      assert.equal(p.executed, false);
      assert.equal(p.quorumThreshold, QUORUM);
      assert.equal(p.yesWeight + p.noWeight + p.abstainWeight, 0n);
      assert.deepEqual(p.config, NEW_CONFIG);
      assert.equal(await voting.read.state([1n]), STATE.Pending);
      await viem.assertions.revertWithCustomErrorWithArgs(vote(bob, 1n, SUPPORT.Yes), voting, "VotingNotStarted", [
        1n,
        start,
      ]);
      await time.increaseTo(start);
      assert.equal(await voting.read.state([1n]), STATE.Active);
      await vote(bob, 1n, SUPPORT.Yes);
    });

    it("needs at least one whole token: exactly 1e18 is enough, 1e18 - 1 is not", async () => {
      await load();
      assert.equal(await propose(erin), 1n);
      await viem.assertions.revertWithCustomErrorWithArgs(
        voting.write.propose([1n, NEW_CONFIG, ""], { account: frank.account }),
        voting,
        "NoHoldings",
        [frank.account.address, FRANK, TOKEN],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        voting.write.propose([1n, NEW_CONFIG, ""], { account: outsider.account }),
        voting,
        "NoHoldings",
        [outsider.account.address, 0n, TOKEN],
      );
    });

    it("counts holdings of the proposed worker's token only", async () => {
      const { beta } = await load();
      // Alice holds plenty of ALPHA but no BETA.
      await viem.assertions.revertWithCustomErrorWithArgs(
        voting.write.propose([beta.workerId, NEW_CONFIG, ""], { account: alice.account }),
        voting,
        "NoHoldings",
        [alice.account.address, 0n, TOKEN],
      );
      const id = await propose(bob, beta.workerId);
      const p = await voting.read.getProposal([id]);
      assert.equal(getAddress(p.token), getAddress(beta.token.address));
      assert.equal(p.workerId, beta.workerId);
    });

    it("ignores tokens received in the proposal's own block", async () => {
      const { alpha } = await load();
      const testClient = await viem.getTestClient();
      await testClient.setAutomine(false);
      let transfer: Hash;
      let proposal: Hash;
      try {
        transfer = await alpha.token.write.transfer([outsider.account.address, 5n * TOKEN], {
          account: alice.account,
          gas: 200_000n,
        });
        proposal = await voting.write.propose([1n, NEW_CONFIG, ""], { account: outsider.account, gas: 1_000_000n });
        await networkHelpers.mine();
      } finally {
        await testClient.setAutomine(true);
      }
      const [transferReceipt, proposalReceipt] = await Promise.all([
        publicClient.waitForTransactionReceipt({ hash: transfer }),
        publicClient.waitForTransactionReceipt({ hash: proposal }),
      ]);
      assert.equal(transferReceipt.blockNumber, proposalReceipt.blockNumber);
      assert.equal(transferReceipt.status, "success");
      assert.equal(proposalReceipt.status, "reverted");
      // Make sure it reverted for lack of weight, not for some other reason.
      const trace = (await publicClient.request({
        method: "debug_traceTransaction" as never,
        params: [proposal] as never,
      })) as { failed: boolean; returnValue: string };
      const reason = decodeErrorResult({ abi: voting.abi, data: `0x${trace.returnValue.replace(/^0x/, "")}` });
      assert.equal(reason.errorName, "NoHoldings");
      assert.deepEqual(reason.args, [getAddress(outsider.account.address), 0n, TOKEN]);
      assert.equal(await voting.read.proposalCount(), 0n);
      // One block later the same tokens are in the snapshot.
      assert.equal(await propose(outsider), 1n);
    });

    it("lets the proposer role (relayer) propose without holdings", async () => {
      const { alpha } = await load();
      assert.equal(await alpha.token.read.balanceOf([relayer.account.address]), 0n);
      await viem.assertions.emitWithArgs(
        voting.write.propose([1n, NEW_CONFIG, "relayed"], { account: relayer.account }),
        voting,
        "ProposalCreated",
        [
          1n,
          1n,
          relayer.account.address,
          alpha.token.address,
          (block: bigint) => block > 0n,
          (start: bigint) => start > 0n,
          (end: bigint) => end > 0n,
          QUORUM,
          5_000,
          NEW_CONFIG,
          "relayed",
        ],
      );
      // The admin has no proposer role and no holdings.
      await viem.assertions.revertWithCustomErrorWithArgs(
        voting.write.propose([1n, NEW_CONFIG, ""], { account: admin.account }),
        voting,
        "NoHoldings",
        [admin.account.address, 0n, TOKEN],
      );
    });

    it("validates the proposed config up front, with the registry's errors", async () => {
      await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        voting.write.propose([1n, { ...NEW_CONFIG, slippageCapBps: 10_001 }, "too loose"], { account: bob.account }),
        registry,
        "InvalidSlippageCap",
        [10_001n],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        voting.write.propose([1n, { ...NEW_CONFIG, signalSubscriptions: [""] }, "empty feed"], {
          account: bob.account,
        }),
        registry,
        "InvalidSignalSubscriptions",
        [1n],
      );
      assert.equal(await voting.read.proposalCount(), 0n);
    });

    it("rejects unknown workers", async () => {
      await load();
      for (const id of [0n, 3n]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          voting.write.propose([id, NEW_CONFIG, ""], { account: relayer.account }),
          registry,
          "UnknownWorker",
          [id],
        );
      }
    });

    it("numbers proposals 1, 2, 3 across workers", async () => {
      const { beta } = await load();
      assert.equal(await propose(alice), 1n);
      assert.equal(await propose(bob, beta.workerId), 2n);
      assert.equal(await propose(relayer), 3n);
      assert.equal(await voting.read.proposalCount(), 3n);
    });
  });

  describe("castVote", () => {
    it("weighs a vote by the voter's votes at the snapshot and emits VoteCast", async () => {
      await load();
      const id = await propose(alice);
      assert.deepEqual(
        (await voting.simulate.castVote([id, SUPPORT.Yes, "lgtm"], { account: bob.account.address })).result,
        [1n, BOB],
      );
      await viem.assertions.emitWithArgs(vote(bob, id, SUPPORT.Yes, "lgtm"), voting, "VoteCast", [
        1n,
        id,
        bob.account.address,
        SUPPORT.Yes,
        BOB,
        "lgtm",
        false,
      ]);
      await viem.assertions.emitWithArgs(vote(carol, id, SUPPORT.No), voting, "VoteCast", [
        2n,
        id,
        carol.account.address,
        SUPPORT.No,
        CAROL,
        "",
        false,
      ]);
      await viem.assertions.emitWithArgs(vote(dave, id, SUPPORT.Abstain, "unsure"), voting, "VoteCast", [
        3n,
        id,
        dave.account.address,
        SUPPORT.Abstain,
        DAVE,
        "unsure",
        false,
      ]);
      const tally = await voting.read.getTally([id]);
      assert.equal(tally.yesWeight, BOB);
      assert.equal(tally.noWeight, CAROL);
      assert.equal(tally.abstainWeight, DAVE);
      const p = await voting.read.getProposal([id]);
      assert.deepEqual([p.yesWeight, p.noWeight, p.abstainWeight], [BOB, CAROL, DAVE]);
      assert.equal(await voting.read.hasVoted([id, bob.account.address]), true);
      assert.equal(await voting.read.hasVoted([id, alice.account.address]), false);
    });

    it("ignores tokens that move after the proposal opened", async () => {
      const { alpha } = await load();
      const id = await propose(alice);
      await alpha.token.write.transfer([bob.account.address, 50_000_000n * TOKEN], { account: alice.account });
      await alpha.token.write.transfer([outsider.account.address, 5n * TOKEN], { account: alice.account });
      await alpha.token.write.transfer([outsider.account.address, DAVE], { account: dave.account });
      await viem.assertions.emitWithArgs(vote(bob, id, SUPPORT.Yes), voting, "VoteCast", [
        1n,
        id,
        bob.account.address,
        SUPPORT.Yes,
        BOB,
        "",
        false,
      ]);
      // Dave sold everything after the snapshot and still votes with his snapshot weight.
      await viem.assertions.emitWithArgs(vote(dave, id, SUPPORT.No), voting, "VoteCast", [
        2n,
        id,
        dave.account.address,
        SUPPORT.No,
        DAVE,
        "",
        false,
      ]);
      await viem.assertions.revertWithCustomErrorWithArgs(vote(outsider, id, SUPPORT.Yes), voting, "NoHoldings", [
        outsider.account.address,
        0n,
        TOKEN,
      ]);
      // A proposal opened now sees the new balances.
      const later = await propose(alice);
      await viem.assertions.emitWithArgs(vote(bob, later, SUPPORT.Yes), voting, "VoteCast", [
        3n,
        later,
        bob.account.address,
        SUPPORT.Yes,
        BOB + 50_000_000n * TOKEN,
        "",
        false,
      ]);
    });

    it("rejects voters below one whole token at the snapshot", async () => {
      await load();
      const id = await propose(alice);
      await viem.assertions.revertWithCustomErrorWithArgs(vote(frank, id, SUPPORT.Yes), voting, "NoHoldings", [
        frank.account.address,
        FRANK,
        TOKEN,
      ]);
      await vote(erin, id, SUPPORT.Yes);
      assert.equal((await voting.read.getTally([id])).yesWeight, ERIN);
    });

    it("numbers votes globally across proposals", async () => {
      await load();
      const first = await propose(alice);
      const second = await propose(alice);
      const cases: [Wallet, bigint, bigint, bigint][] = [
        [bob, first, 1n, BOB],
        [bob, second, 2n, BOB],
        [carol, first, 3n, CAROL],
      ];
      for (const [voter, id, voteId, weight] of cases) {
        await viem.assertions.emitWithArgs(vote(voter, id, SUPPORT.Yes), voting, "VoteCast", [
          voteId,
          id,
          voter.account.address,
          SUPPORT.Yes,
          weight,
          "",
          false,
        ]);
      }
      assert.equal((await voting.read.getTally([first])).yesWeight, BOB + CAROL);
      assert.equal((await voting.read.getTally([second])).yesWeight, BOB);
    });

    it("rejects a second vote by the same voter", async () => {
      await load();
      const id = await propose(alice);
      await vote(bob, id, SUPPORT.Yes);
      await viem.assertions.revertWithCustomErrorWithArgs(vote(bob, id, SUPPORT.No), voting, "AlreadyVoted", [
        id,
        bob.account.address,
      ]);
      assert.equal((await voting.read.getTally([id])).noWeight, 0n);
    });

    it("accepts comments up to 280 bytes and rejects longer ones", async () => {
      await load();
      const id = await propose(alice);
      await viem.assertions.revertWithCustomErrorWithArgs(
        vote(bob, id, SUPPORT.Yes, "c".repeat(281)),
        voting,
        "CommentTooLong",
        [281n, 280n],
      );
      // 141 two-byte characters.
      await viem.assertions.revertWithCustomErrorWithArgs(
        vote(bob, id, SUPPORT.Yes, "é".repeat(141)),
        voting,
        "CommentTooLong",
        [282n, 280n],
      );
      const max = "c".repeat(280);
      await viem.assertions.emitWithArgs(vote(bob, id, SUPPORT.Yes, max), voting, "VoteCast", [
        1n,
        id,
        bob.account.address,
        SUPPORT.Yes,
        BOB,
        max,
        false,
      ]);
    });

    it("is open until just before endTime and closed from endTime on", async () => {
      await load();
      const id = await propose(alice);
      const { endTime } = await voting.read.getProposal([id]);
      await time.setNextBlockTimestamp(endTime - 1n);
      await vote(bob, id, SUPPORT.Yes);
      await time.setNextBlockTimestamp(endTime);
      await viem.assertions.revertWithCustomErrorWithArgs(vote(carol, id, SUPPORT.No), voting, "ProposalClosed", [id]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        voting.write.castVoteFor([carol.account.address, id, SUPPORT.No, ""], { account: relayer.account }),
        voting,
        "ProposalClosed",
        [id],
      );
      assert.equal(await voting.read.hasVoted([id, carol.account.address]), false);
    });
  });

  describe("castVoteFor", () => {
    it("lets the relayer vote for a holder, flagged as relayed", async () => {
      await load();
      const id = await propose(alice);
      await viem.assertions.emitWithArgs(
        voting.write.castVoteFor([carol.account.address, id, SUPPORT.No, "via api"], { account: relayer.account }),
        voting,
        "VoteCast",
        [1n, id, carol.account.address, SUPPORT.No, CAROL, "via api", true],
      );
      assert.equal(await voting.read.hasVoted([id, carol.account.address]), true);
      // The relayer has not voted itself.
      assert.equal(await voting.read.hasVoted([id, relayer.account.address]), false);
      assert.equal((await voting.read.getTally([id])).noWeight, CAROL);
    });

    it("applies the same weight rules to the represented voter", async () => {
      await load();
      const id = await propose(alice);
      await viem.assertions.revertWithCustomErrorWithArgs(
        voting.write.castVoteFor([frank.account.address, id, SUPPORT.Yes, ""], { account: relayer.account }),
        voting,
        "NoHoldings",
        [frank.account.address, FRANK, TOKEN],
      );
    });

    it("rejects callers without the relayer role, voter and admin included", async () => {
      await load();
      const id = await propose(alice);
      for (const caller of [carol, admin]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          voting.write.castVoteFor([carol.account.address, id, SUPPORT.Yes, ""], { account: caller.account }),
          voting,
          "AccessControlUnauthorizedAccount",
          [caller.account.address, RELAYER_ROLE],
        );
      }
    });

    it("shares the one-vote-per-voter rule with castVote, both ways", async () => {
      await load();
      const id = await propose(alice);
      await vote(bob, id, SUPPORT.Yes);
      await viem.assertions.revertWithCustomErrorWithArgs(
        voting.write.castVoteFor([bob.account.address, id, SUPPORT.No, ""], { account: relayer.account }),
        voting,
        "AlreadyVoted",
        [id, bob.account.address],
      );
      await voting.write.castVoteFor([carol.account.address, id, SUPPORT.No, ""], { account: relayer.account });
      await viem.assertions.revertWithCustomErrorWithArgs(vote(carol, id, SUPPORT.Yes), voting, "AlreadyVoted", [
        id,
        carol.account.address,
      ]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        voting.write.castVoteFor([carol.account.address, id, SUPPORT.Yes, ""], { account: relayer.account }),
        voting,
        "AlreadyVoted",
        [id, carol.account.address],
      );
      const tally = await voting.read.getTally([id]);
      assert.deepEqual([tally.yesWeight, tally.noWeight], [BOB, CAROL]);
    });
  });

  describe("unknown proposals", () => {
    it("revert with ProposalNotFound for id 0 and ids never created", async () => {
      await load();
      await propose(alice);
      for (const id of [0n, 2n]) {
        await viem.assertions.revertWithCustomErrorWithArgs(vote(bob, id, SUPPORT.Yes), voting, "ProposalNotFound", [
          id,
        ]);
        await viem.assertions.revertWithCustomErrorWithArgs(
          voting.write.castVoteFor([bob.account.address, id, SUPPORT.Yes, ""], { account: relayer.account }),
          voting,
          "ProposalNotFound",
          [id],
        );
        await viem.assertions.revertWithCustomErrorWithArgs(voting.read.getTally([id]), voting, "ProposalNotFound", [
          id,
        ]);
        await viem.assertions.revertWithCustomErrorWithArgs(voting.read.state([id]), voting, "ProposalNotFound", [id]);
        await viem.assertions.revertWithCustomErrorWithArgs(voting.read.getProposal([id]), voting, "ProposalNotFound", [
          id,
        ]);
        await viem.assertions.revertWithCustomErrorWithArgs(
          voting.write.execute([id], { account: bob.account }),
          voting,
          "ProposalNotFound",
          [id],
        );
      }
    });
  });

  describe("tally and state", () => {
    async function assertTally(id: bigint, yes: bigint, no: bigint, abstain: bigint) {
      const tally = await voting.read.getTally([id]);
      const expected = expectedTally(yes, no, abstain);
      assert.deepEqual(tally, {
        yesWeight: yes,
        noWeight: no,
        abstainWeight: abstain,
        quorumThreshold: QUORUM,
        quorumReached: expected.quorumReached,
        passingThresholdBps: 5_000,
        currentlyPassing: expected.currentlyPassing,
      });
      return expected;
    }

    it("needs quorum: yes below quorum is not passing, abstain can complete the quorum", async () => {
      await load();
      const id = await propose(alice);
      await vote(erin, id, SUPPORT.Yes);
      // 1 token of an 8M quorum.
      const before = await assertTally(id, ERIN, 0n, 0n);
      assert.deepEqual(before, { quorumReached: false, currentlyPassing: false });
      await vote(dave, id, SUPPORT.Abstain);
      // 1 token yes + 10M abstain pass the 8M quorum.
      const after = await assertTally(id, ERIN, 0n, DAVE);
      assert.deepEqual(after, { quorumReached: true, currentlyPassing: true });
    });

    it("a tie is not a majority; one more yes makes it pass", async () => {
      await load();
      const id = await propose(alice);
      await vote(bob, id, SUPPORT.Yes);
      await vote(carol, id, SUPPORT.No);
      assert.deepEqual(await assertTally(id, BOB, CAROL, 0n), { quorumReached: true, currentlyPassing: false });
      await vote(erin, id, SUPPORT.Yes);
      assert.deepEqual(await assertTally(id, BOB + ERIN, CAROL, 0n), { quorumReached: true, currentlyPassing: true });
    });

    it("abstain alone reaches quorum but never passes", async () => {
      await load();
      const id = await propose(alice);
      await vote(alice, id, SUPPORT.Abstain);
      assert.deepEqual(await assertTally(id, 0n, 0n, ALICE), { quorumReached: true, currentlyPassing: false });
      await closeVoting(id);
      assert.equal(await voting.read.state([id]), STATE.Defeated);
    });

    it("Active -> Succeeded when the majority holds at endTime", async () => {
      await load();
      const id = await propose(alice);
      await vote(bob, id, SUPPORT.Yes);
      await vote(dave, id, SUPPORT.Yes);
      await vote(carol, id, SUPPORT.No);
      assert.equal(await voting.read.state([id]), STATE.Active);
      const { endTime } = await voting.read.getProposal([id]);
      await time.increaseTo(endTime - 1n);
      assert.equal(await voting.read.state([id]), STATE.Active);
      await time.increaseTo(endTime);
      assert.equal(await voting.read.state([id]), STATE.Succeeded);
    });

    it("Active -> Defeated when the no side wins", async () => {
      await load();
      const id = await propose(alice);
      await vote(bob, id, SUPPORT.Yes);
      await vote(alice, id, SUPPORT.No);
      await closeVoting(id);
      assert.equal(await voting.read.state([id]), STATE.Defeated);
    });

    it("Active -> Defeated when nobody votes", async () => {
      await load();
      const id = await propose(alice);
      await closeVoting(id);
      assert.equal(await voting.read.state([id]), STATE.Defeated);
      assert.deepEqual(await assertTally(id, 0n, 0n, 0n), { quorumReached: false, currentlyPassing: false });
    });
  });

  describe("execute", () => {
    async function succeededProposal(workerId = 1n, config = NEW_CONFIG) {
      const id = await propose(bob, workerId, config);
      await vote(bob, id, SUPPORT.Yes);
      await vote(dave, id, SUPPORT.Yes);
      await closeVoting(id);
      assert.equal(await voting.read.state([id]), STATE.Succeeded);
      return id;
    }

    it("applies the config to the worker in the registry; anyone may execute", async () => {
      const { alpha } = await load();
      assert.deepEqual((await registry.read.getWorker([alpha.workerId])).config, SPAWN_CONFIG);
      const id = await succeededProposal();
      const hash = await voting.write.execute([id], { account: outsider.account });
      await viem.assertions.emitWithArgs(Promise.resolve(hash), voting, "ProposalExecuted", [id, alpha.workerId]);
      await viem.assertions.emitWithArgs(Promise.resolve(hash), registry, "WorkerConfigUpdated", [
        alpha.workerId,
        NEW_CONFIG,
      ]);
      assert.deepEqual((await registry.read.getWorker([alpha.workerId])).config, NEW_CONFIG);
      assert.equal(await voting.read.state([id]), STATE.Executed);
      assert.equal((await voting.read.getProposal([id])).executed, true);
    });

    it("only touches the proposal's worker", async () => {
      const { beta } = await load();
      const id = await propose(bob, beta.workerId);
      await vote(bob, id, SUPPORT.Yes);
      await closeVoting(id);
      await voting.write.execute([id], { account: bob.account });
      assert.deepEqual((await registry.read.getWorker([beta.workerId])).config, NEW_CONFIG);
      assert.deepEqual((await registry.read.getWorker([1n])).config, SPAWN_CONFIG);
    });

    it("rejects Active, Defeated and already Executed proposals with their state", async () => {
      await load();
      const active = await propose(alice);
      await viem.assertions.revertWithCustomErrorWithArgs(
        voting.write.execute([active], { account: bob.account }),
        voting,
        "ProposalNotSucceeded",
        [active, STATE.Active],
      );
      await closeVoting(active);
      await viem.assertions.revertWithCustomErrorWithArgs(
        voting.write.execute([active], { account: bob.account }),
        voting,
        "ProposalNotSucceeded",
        [active, STATE.Defeated],
      );
      const passed = await succeededProposal();
      await voting.write.execute([passed], { account: bob.account });
      await viem.assertions.revertWithCustomErrorWithArgs(
        voting.write.execute([passed], { account: bob.account }),
        voting,
        "ProposalNotSucceeded",
        [passed, STATE.Executed],
      );
    });

    it("never lets an older proposal overwrite a newer executed config (Superseded)", async () => {
      const { alpha } = await load();
      const older = await propose(bob, alpha.workerId, NEW_CONFIG);
      const newerConfig = { slippageCapBps: 40, mevProtection: 0, signalSubscriptions: ["news"] };
      const newer = await propose(carol, alpha.workerId, newerConfig);
      for (const id of [older, newer]) {
        await vote(bob, id, SUPPORT.Yes);
        await vote(dave, id, SUPPORT.Yes);
      }
      await closeVoting(newer);
      await voting.write.execute([newer], { account: bob.account });
      assert.equal(await voting.read.state([older]), STATE.Superseded);
      await viem.assertions.revertWithCustomErrorWithArgs(
        voting.write.execute([older], { account: bob.account }),
        voting,
        "ProposalNotSucceeded",
        [older, STATE.Superseded],
      );
      assert.deepEqual((await registry.read.getWorker([alpha.workerId])).config, newerConfig);
    });

    it("closes an executed proposal to votes", async () => {
      await load();
      const id = await succeededProposal();
      await voting.write.execute([id], { account: bob.account });
      await viem.assertions.revertWithCustomErrorWithArgs(vote(carol, id, SUPPORT.No), voting, "ProposalClosed", [id]);
      assert.equal((await voting.read.getTally([id])).noWeight, 0n);
    });
  });

  describe("admin settings", () => {
    it("setVotingPeriod accepts 1 s to 365 days and emits the change", async () => {
      await load();
      await viem.assertions.emitWithArgs(
        voting.write.setVotingPeriod([365n * DAY], { account: admin.account }),
        voting,
        "VotingPeriodUpdated",
        [VOTING_PERIOD, 365n * DAY],
      );
      await viem.assertions.emitWithArgs(
        voting.write.setVotingPeriod([1n], { account: admin.account }),
        voting,
        "VotingPeriodUpdated",
        [365n * DAY, 1n],
      );
      assert.equal((await voting.read.settings())[1], 1n);
    });

    it("setVotingDelay accepts 1 hour to 30 days, rejects outside, and applies to new proposals", async () => {
      await load();
      await viem.assertions.emitWithArgs(
        voting.write.setVotingDelay([3600n], { account: admin.account }),
        voting,
        "VotingDelayUpdated",
        [VOTING_DELAY, 3600n],
      );
      for (const delay of [0n, 3599n, 30n * DAY + 1n]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          voting.write.setVotingDelay([delay], { account: admin.account }),
          voting,
          "InvalidVotingDelay",
          [delay],
        );
      }
      await voting.write.setVotingDelay([30n * DAY], { account: admin.account });
      assert.equal((await voting.read.settings())[0], 30n * DAY);
      const id = await proposePending(alice);
      const p = await voting.read.getProposal([id]);
      assert.equal(p.startTime, p.proposedAt + 30n * DAY);
      await viem.assertions.revertWithCustomErrorWithArgs(
        voting.write.setVotingDelay([DAY], { account: relayer.account }),
        voting,
        "AccessControlUnauthorizedAccount",
        [getAddress(relayer.account.address), zeroHash],
      );
    });

    it("setVotingPeriod rejects 0 and more than 365 days", async () => {
      await load();
      for (const period of [0n, 365n * DAY + 1n]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          voting.write.setVotingPeriod([period], { account: admin.account }),
          voting,
          "InvalidVotingPeriod",
          [period],
        );
      }
      assert.equal((await voting.read.settings())[1], VOTING_PERIOD);
    });

    it("setQuorumBps accepts 0 to 10000 and rejects above", async () => {
      await load();
      await viem.assertions.emitWithArgs(
        voting.write.setQuorumBps([10_000], { account: admin.account }),
        voting,
        "QuorumUpdated",
        [400, 10_000],
      );
      await viem.assertions.emitWithArgs(
        voting.write.setQuorumBps([0], { account: admin.account }),
        voting,
        "QuorumUpdated",
        [10_000, 0],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        voting.write.setQuorumBps([10_001], { account: admin.account }),
        voting,
        "InvalidBps",
        [10_001n],
      );
      assert.equal((await voting.read.settings())[2], 0);
    });

    it("setPassingThresholdBps accepts up to 9999 and rejects 10000 and above", async () => {
      await load();
      await viem.assertions.emitWithArgs(
        voting.write.setPassingThresholdBps([9_999], { account: admin.account }),
        voting,
        "PassingThresholdUpdated",
        [5_000, 9_999],
      );
      for (const bps of [10_000, 65_535]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          voting.write.setPassingThresholdBps([bps], { account: admin.account }),
          voting,
          "InvalidBps",
          [BigInt(bps)],
        );
      }
      assert.equal((await voting.read.settings())[3], 9_999);
    });

    it("apply to new proposals only", async () => {
      await load();
      const old = await propose(alice);
      const oldProposal = await voting.read.getProposal([old]);
      await voting.write.setVotingPeriod([DAY], { account: admin.account });
      await voting.write.setQuorumBps([100], { account: admin.account });
      await voting.write.setPassingThresholdBps([6_000], { account: admin.account });
      const start = BigInt(await time.latest()) + 10n;
      await time.setNextBlockTimestamp(start);
      const fresh = await propose(alice);
      assert.deepEqual(await voting.read.getProposal([old]), oldProposal);
      const freshProposal = await voting.read.getProposal([fresh]);
      assert.equal(freshProposal.endTime, start + VOTING_DELAY + DAY);
      assert.equal(freshProposal.quorumThreshold, (CIRCULATING * 100n) / BPS);
      assert.equal(freshProposal.passingThresholdBps, 6_000);
      // 40M yes against 30M no is 57%: enough under the old 50% threshold, not under the new 60%.
      for (const id of [old, fresh]) {
        await vote(bob, id, SUPPORT.Yes);
        await vote(dave, id, SUPPORT.Yes);
        await vote(carol, id, SUPPORT.No);
      }
      const yes = BOB + DAVE;
      assert.deepEqual(
        {
          quorumReached: (await voting.read.getTally([old])).quorumReached,
          currentlyPassing: (await voting.read.getTally([old])).currentlyPassing,
        },
        expectedTally(yes, CAROL, 0n, QUORUM, 5_000n),
      );
      assert.deepEqual(
        {
          quorumReached: (await voting.read.getTally([fresh])).quorumReached,
          currentlyPassing: (await voting.read.getTally([fresh])).currentlyPassing,
        },
        expectedTally(yes, CAROL, 0n, (CIRCULATING * 100n) / BPS, 6_000n),
      );
      assert.equal((await voting.read.getTally([old])).currentlyPassing, true);
      assert.equal((await voting.read.getTally([fresh])).currentlyPassing, false);
      // The fresh proposal closes one day after its voting opened, the old one is still open.
      await time.increaseTo(start + VOTING_DELAY + DAY);
      assert.equal(await voting.read.state([fresh]), STATE.Defeated);
      assert.equal(await voting.read.state([old]), STATE.Active);
    });

    it("reject accounts without the admin role, relayer included", async () => {
      await load();
      const calls = [
        (caller: Wallet) => voting.write.setVotingPeriod([DAY], { account: caller.account }),
        (caller: Wallet) => voting.write.setQuorumBps([100], { account: caller.account }),
        (caller: Wallet) => voting.write.setPassingThresholdBps([6_000], { account: caller.account }),
        (caller: Wallet) => voting.write.grantRole([RELAYER_ROLE, caller.account.address], { account: caller.account }),
      ];
      for (const caller of [alice, relayer]) {
        for (const call of calls) {
          await viem.assertions.revertWithCustomErrorWithArgs(
            call(caller),
            voting,
            "AccessControlUnauthorizedAccount",
            [caller.account.address, zeroHash],
          );
        }
      }
      assert.deepEqual(await voting.read.settings(), [VOTING_DELAY, VOTING_PERIOD, 400, 5_000]);
    });
  });
});
