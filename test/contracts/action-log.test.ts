import { describe, it } from "vitest";
import assert from "node:assert/strict";
import { type Hash, type Hex, getAddress, keccak256, parseEventLogs, toHex, zeroAddress } from "viem";
import { deployFixture, TIER, WORKER_STATUS, spawnToken as spawnAgentToken } from "../../support/contracts/fixtures.ts";

const ACTIVITY_ROLE = keccak256(toHex("ACTIVITY_ROLE"));
const KIND = { Token: 0, Queen: 1, Scout: 2 } as const;
const BUY_PAYLOAD = toHex(JSON.stringify({ side: "buy", amount: "1000", slippageBps: 50 }));

describe("ActionLog", async () => {
  const f = await deployFixture();
  const { actionLog, registry, viem, networkHelpers, publicClient } = f;
  const { admin, operator, alice, bob, carol } = f.wallets;
  const [, , , , , , , , queenOperator, scoutOperator, betaOperator, spareOperator] = await viem.getWalletClients();
  type Wallet = typeof alice;

  async function spawnToken(owner: Wallet, symbol: string) {
    return spawnAgentToken(f, owner, symbol);
  }

  async function registerAgent(tier: number, operatorWallet: Wallet) {
    const hash = await registry.write.registerAgent([tier, operatorWallet.account.address, carol.account.address], {
      account: admin.account,
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    const [event] = parseEventLogs({ abi: registry.abi, eventName: "AgentRegistered", logs: receipt.logs });
    return event.args.nftId;
  }

  function record(caller: Wallet, target: bigint, actionType: string, payload: Hex = "0x", reason = "") {
    return actionLog.write.record([target, actionType, payload, reason], { account: caller.account });
  }

  async function registryLogs(hash: Hash) {
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    return receipt.logs.filter((log) => getAddress(log.address) === getAddress(registry.address));
  }

  // ALPHA's worker keeps the spawner's default operator; BETA's worker gets its own operator so
  // "a worker acts only on its own token" can be told apart from "the operator runs every worker".
  async function actionLogFixture() {
    const alpha = await spawnToken(alice, "ALPHA");
    const beta = await spawnToken(bob, "BETA");
    await registry.write.setWorkerOperator([beta.workerId, betaOperator.account.address], { account: admin.account });
    const queenId = await registerAgent(TIER.Queen, queenOperator);
    const scoutId = await registerAgent(TIER.Scout, scoutOperator);
    return { alpha, beta, queenId, scoutId };
  }
  const load = () => networkHelpers.loadFixture(actionLogFixture);

  it("points at the registry and starts empty", async () => {
    await load();
    assert.equal(getAddress(await actionLog.read.registry()), getAddress(registry.address));
    assert.equal(await actionLog.read.entryCount(), 0n);
    assert.equal(await actionLog.read.MAX_PAYLOAD_BYTES(), 4096n);
    assert.equal(await actionLog.read.MAX_REASON_BYTES(), 64n);
  });

  describe("workers", () => {
    it("records on their own token with entry ids 1, 2, 3 and exact event fields", async () => {
      const { alpha } = await load();
      const actions = [
        { actionType: "buy", payload: BUY_PAYLOAD, reason: "momentum_up" },
        { actionType: "rebalance_2", payload: "0x" as Hex, reason: "" },
        { actionType: "sell", payload: toHex("{}"), reason: "take_profit" },
      ];
      for (const [index, { actionType, payload, reason }] of actions.entries()) {
        const entryId = BigInt(index + 1);
        const { result } = await actionLog.simulate.record([alpha.nftId, actionType, payload, reason], {
          account: operator.account.address,
        });
        assert.equal(result, entryId);
        await viem.assertions.emitWithArgs(
          record(operator, alpha.nftId, actionType, payload, reason),
          actionLog,
          "ActionRecorded",
          [
            entryId,
            alpha.nftId,
            TIER.Worker,
            alpha.workerId,
            operator.account.address,
            actionType,
            payload,
            reason,
            false,
          ],
        );
        assert.equal(await actionLog.read.entryCount(), entryId);
      }
    });

    it("stamps the worker's lastActiveAt and emits WorkerActive from the registry", async () => {
      const { alpha } = await load();
      const deployedAt = (await registry.read.getWorker([alpha.workerId])).deployedAt;
      const at = BigInt(await networkHelpers.time.latest()) + 7200n;
      await networkHelpers.time.setNextBlockTimestamp(at);
      const hash = await record(operator, alpha.nftId, "buy", BUY_PAYLOAD, "signal");
      await viem.assertions.emitWithArgs(Promise.resolve(hash), registry, "WorkerActive", [alpha.workerId, at]);
      const worker = await registry.read.getWorker([alpha.workerId]);
      assert.equal(worker.lastActiveAt, at);
      assert.equal(worker.deployedAt, deployedAt);
      // Only the acting worker is stamped.
      assert.notEqual((await registry.read.getWorker([2n])).lastActiveAt, at);
    });

    it("rejects a worker operator acting on another token", async () => {
      const { alpha, beta } = await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        record(operator, beta.nftId, "buy"),
        actionLog,
        "UnauthorizedAgent",
        [operator.account.address, beta.nftId],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        record(betaOperator, alpha.nftId, "buy"),
        actionLog,
        "UnauthorizedAgent",
        [betaOperator.account.address, alpha.nftId],
      );
      // Both operators can act on their own token.
      await record(betaOperator, beta.nftId, "buy");
      await record(operator, alpha.nftId, "buy");
      assert.equal(await actionLog.read.entryCount(), 2n);
    });

    it("rejects accounts that operate nothing, the token's NFT owner and the admin included", async () => {
      const { alpha } = await load();
      for (const caller of [alice, admin, spareOperator]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          record(caller, alpha.nftId, "buy"),
          actionLog,
          "UnauthorizedAgent",
          [caller.account.address, alpha.nftId],
        );
      }
      assert.equal(await actionLog.read.entryCount(), 0n);
    });

    it("follows a change of worker operator", async () => {
      const { alpha } = await load();
      await registry.write.setWorkerOperator([alpha.workerId, spareOperator.account.address], {
        account: admin.account,
      });
      await viem.assertions.revertWithCustomErrorWithArgs(
        record(operator, alpha.nftId, "buy"),
        actionLog,
        "UnauthorizedAgent",
        [operator.account.address, alpha.nftId],
      );
      await viem.assertions.emitWithArgs(record(spareOperator, alpha.nftId, "buy"), actionLog, "ActionRecorded", [
        1n,
        alpha.nftId,
        TIER.Worker,
        alpha.workerId,
        spareOperator.account.address,
        "buy",
        "0x",
        "",
        false,
      ]);
    });

    it("rejects a suspended worker until it is reactivated", async () => {
      const { alpha } = await load();
      await registry.write.setWorkerStatus([alpha.workerId, WORKER_STATUS.Suspended], { account: admin.account });
      await viem.assertions.revertWithCustomErrorWithArgs(
        record(operator, alpha.nftId, "buy"),
        actionLog,
        "WorkerSuspended",
        [alpha.workerId],
      );
      await registry.write.setWorkerStatus([alpha.workerId, WORKER_STATUS.Active], { account: admin.account });
      await record(operator, alpha.nftId, "buy");
      assert.equal(await actionLog.read.entryCount(), 1n);
    });

    it("lets an idle worker record", async () => {
      const { alpha } = await load();
      await registry.write.setWorkerStatus([alpha.workerId, WORKER_STATUS.Idle], { account: admin.account });
      await viem.assertions.emitWithArgs(record(operator, alpha.nftId, "heartbeat"), actionLog, "ActionRecorded", [
        1n,
        alpha.nftId,
        TIER.Worker,
        alpha.workerId,
        operator.account.address,
        "heartbeat",
        "0x",
        "",
        false,
      ]);
      // Recording does not flip the status back to Active; only a manager does.
      assert.equal((await registry.read.getWorker([alpha.workerId])).status, WORKER_STATUS.Idle);
    });

    it("may not record an override or a resume", async () => {
      const { alpha } = await load();
      for (const actionType of ["override", "resume"])
        await viem.assertions.revertWithCustomErrorWithArgs(
          record(operator, alpha.nftId, actionType),
          actionLog,
          "OverrideNotAllowed",
          [TIER.Worker, TIER.Worker],
        );
      // Only the exact string is an override.
      await record(operator, alpha.nftId, "override_request");
      assert.equal(await actionLog.read.entryCount(), 1n);
    });

    it("cannot record once the log loses the activity role", async () => {
      const { alpha } = await load();
      await registry.write.revokeRole([ACTIVITY_ROLE, actionLog.address], { account: admin.account });
      await viem.assertions.revertWithCustomErrorWithArgs(
        record(operator, alpha.nftId, "buy"),
        registry,
        "AccessControlUnauthorizedAccount",
        [actionLog.address, ACTIVITY_ROLE],
      );
      assert.equal(await actionLog.read.entryCount(), 0n);
    });
  });

  describe("queens and scouts", () => {
    it("a queen records on any token with tier 3 and its NFT id as source", async () => {
      const { alpha, beta, queenId } = await load();
      await viem.assertions.emitWithArgs(
        record(queenOperator, alpha.nftId, "rebalance", BUY_PAYLOAD, "swarm_policy"),
        actionLog,
        "ActionRecorded",
        [
          1n,
          alpha.nftId,
          TIER.Queen,
          queenId,
          queenOperator.account.address,
          "rebalance",
          BUY_PAYLOAD,
          "swarm_policy",
          false,
        ],
      );
      await viem.assertions.emitWithArgs(record(queenOperator, beta.nftId, "rebalance"), actionLog, "ActionRecorded", [
        2n,
        beta.nftId,
        TIER.Queen,
        queenId,
        queenOperator.account.address,
        "rebalance",
        "0x",
        "",
        false,
      ]);
    });

    it("a scout records on any token with tier 2 and its NFT id as source", async () => {
      const { beta, scoutId } = await load();
      await viem.assertions.emitWithArgs(
        record(scoutOperator, beta.nftId, "signal", toHex("x"), "whale_alert"),
        actionLog,
        "ActionRecorded",
        [
          1n,
          beta.nftId,
          TIER.Scout,
          scoutId,
          scoutOperator.account.address,
          "signal",
          toHex("x"),
          "whale_alert",
          false,
        ],
      );
    });

    it("queen and scout overrides are recorded and flagged", async () => {
      const { alpha, queenId, scoutId } = await load();
      await viem.assertions.emitWithArgs(
        record(queenOperator, alpha.nftId, "override", "0x", "risk_limit"),
        actionLog,
        "ActionRecorded",
        [1n, alpha.nftId, TIER.Queen, queenId, queenOperator.account.address, "override", "0x", "risk_limit", true],
      );
      await viem.assertions.emitWithArgs(record(scoutOperator, alpha.nftId, "override"), actionLog, "ActionRecorded", [
        2n,
        alpha.nftId,
        TIER.Scout,
        scoutId,
        scoutOperator.account.address,
        "override",
        "0x",
        "",
        true,
      ]);
    });

    it("do not stamp the target token's worker", async () => {
      const { alpha } = await load();
      const before = (await registry.read.getWorker([alpha.workerId])).lastActiveAt;
      await networkHelpers.time.increase(600);
      const hash = await record(queenOperator, alpha.nftId, "rebalance");
      assert.deepEqual(await registryLogs(hash), []);
      assert.equal((await registry.read.getWorker([alpha.workerId])).lastActiveAt, before);
    });

    it("may act on a token whose worker is suspended", async () => {
      const { alpha } = await load();
      await registry.write.setWorkerStatus([alpha.workerId, WORKER_STATUS.Suspended], { account: admin.account });
      await record(queenOperator, alpha.nftId, "override");
      assert.equal(await actionLog.read.entryCount(), 1n);
    });

    it("a disabled queen can no longer record; its new operator can", async () => {
      const { alpha, queenId } = await load();
      await registry.write.setAgentOperator([queenId, zeroAddress], { account: admin.account });
      await viem.assertions.revertWithCustomErrorWithArgs(
        record(queenOperator, alpha.nftId, "rebalance"),
        actionLog,
        "UnauthorizedAgent",
        [queenOperator.account.address, alpha.nftId],
      );
      await registry.write.setAgentOperator([queenId, spareOperator.account.address], { account: admin.account });
      await viem.assertions.emitWithArgs(record(spareOperator, alpha.nftId, "override"), actionLog, "ActionRecorded", [
        1n,
        alpha.nftId,
        TIER.Queen,
        queenId,
        spareOperator.account.address,
        "override",
        "0x",
        "",
        true,
      ]);
    });
  });

  // Issue 24, finding 2: an override used to be an entry and nothing more; the worker went on.
  describe("overrides suspend", () => {
    it("a queen's override suspends the token's worker in the same transaction: its next record reverts", async () => {
      const { alpha } = await load();
      const hash = await record(queenOperator, alpha.nftId, "override", "0x", "CAP_BREACH");
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      assert.equal((await registry.read.getWorker([alpha.workerId])).status, WORKER_STATUS.Suspended);
      const statusChanges = parseEventLogs({ abi: registry.abi, eventName: "WorkerStatusChanged", logs: receipt.logs });
      assert.deepEqual(
        statusChanges.map((e) => [e.args.workerId, e.args.newStatus]),
        [[alpha.workerId, WORKER_STATUS.Suspended]],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        record(operator, alpha.nftId, "trade"),
        actionLog,
        "WorkerSuspended",
        [alpha.workerId],
      );
    });

    it("a scout's override holds the worker until the default cool-off ends, then it records again", async () => {
      const { alpha, scoutId } = await load();
      const coolOff = await actionLog.read.DEFAULT_COOL_OFF();
      assert.equal(coolOff, 3600n);
      const hash = await record(scoutOperator, alpha.nftId, "override");
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      const { timestamp } = await publicClient.getBlock({ blockNumber: receipt.blockNumber });
      const [suspended] = parseEventLogs({ abi: registry.abi, eventName: "WorkerSuspended", logs: receipt.logs });
      assert.deepEqual(suspended.args, {
        workerId: alpha.workerId,
        byTier: TIER.Scout,
        byAgentId: scoutId,
        until: timestamp + coolOff,
        resumeTo: WORKER_STATUS.Active,
      });
      await networkHelpers.time.setNextBlockTimestamp(timestamp + coolOff - 1n);
      await viem.assertions.revertWithCustomErrorWithArgs(
        record(operator, alpha.nftId, "trade"),
        actionLog,
        "WorkerSuspended",
        [alpha.workerId],
      );
      await networkHelpers.time.setNextBlockTimestamp(timestamp + coolOff);
      await record(operator, alpha.nftId, "trade");
    });

    it("recordOverride states the cool-off; the overriding tier's resume lifts it early", async () => {
      const { alpha, queenId } = await load();
      await actionLog.write.recordOverride([alpha.nftId, 300n, "0x", "DIRECTIVE_BREACH"], {
        account: queenOperator.account,
      });
      const suspension = await registry.read.workerSuspension([alpha.workerId]);
      assert.deepEqual([suspension.byTier, suspension.byAgentId], [TIER.Queen, queenId]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        record(scoutOperator, alpha.nftId, "resume"),
        actionLog,
        "ResumeNotAllowed",
        [TIER.Scout, TIER.Queen],
      );
      await viem.assertions.emitWithArgs(
        record(queenOperator, alpha.nftId, "resume", "0x", "OVERRIDE_LIFTED"),
        registry,
        "WorkerResumed",
        [alpha.workerId, TIER.Queen, queenId],
      );
      assert.equal((await registry.read.getWorker([alpha.workerId])).status, WORKER_STATUS.Active);
      await record(operator, alpha.nftId, "trade");
    });

    it("a scout overrides workers only; the queen overrides scouts, who then may not record", async () => {
      const { alpha, queenId, scoutId } = await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        record(scoutOperator, queenId, "override"),
        actionLog,
        "OverrideNotAllowed",
        [TIER.Scout, TIER.Queen],
      );
      await record(queenOperator, scoutId, "override");
      await viem.assertions.revertWithCustomErrorWithArgs(
        record(scoutOperator, alpha.nftId, "flag"),
        actionLog,
        "AgentSuspended",
        [scoutId],
      );
      await record(queenOperator, scoutId, "resume");
      await record(scoutOperator, alpha.nftId, "flag");
    });
  });

  describe("validation", () => {
    it("rejects action types outside [a-z0-9_]{1,32}", async () => {
      const { alpha } = await load();
      for (const actionType of ["", "Buy", "BUY", "buy now", "buy-now", "a".repeat(33), "café", "buy\n"]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          record(operator, alpha.nftId, actionType),
          actionLog,
          "InvalidActionType",
          [actionType],
        );
      }
      assert.equal(await actionLog.read.entryCount(), 0n);
    });

    it("accepts every character of [a-z0-9_] and lengths 1 and 32", async () => {
      const { alpha } = await load();
      const valid = ["a", "abcdefghijklmnopqrstuvwxyz", "0123456789_", "z".repeat(32), "_"];
      for (const actionType of valid) await record(operator, alpha.nftId, actionType);
      assert.equal(await actionLog.read.entryCount(), BigInt(valid.length));
    });

    it("checks the action type for queens too", async () => {
      const { alpha } = await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        record(queenOperator, alpha.nftId, "Override"),
        actionLog,
        "InvalidActionType",
        ["Override"],
      );
    });

    it("accepts a payload of 4096 bytes and rejects 4097", async () => {
      const { alpha } = await load();
      const max = toHex(new Uint8Array(4096).fill(0x7b));
      await viem.assertions.emitWithArgs(record(operator, alpha.nftId, "buy", max), actionLog, "ActionRecorded", [
        1n,
        alpha.nftId,
        TIER.Worker,
        alpha.workerId,
        operator.account.address,
        "buy",
        max,
        "",
        false,
      ]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        record(operator, alpha.nftId, "buy", toHex(new Uint8Array(4097))),
        actionLog,
        "FieldTooLong",
        [4097n, 4096n],
      );
    });

    it("accepts a reason code of 64 bytes and rejects 65, counting UTF-8 bytes", async () => {
      const { alpha } = await load();
      await record(operator, alpha.nftId, "buy", "0x", "r".repeat(64));
      await viem.assertions.revertWithCustomErrorWithArgs(
        record(operator, alpha.nftId, "buy", "0x", "r".repeat(65)),
        actionLog,
        "FieldTooLong",
        [65n, 64n],
      );
      // 33 two-byte characters.
      await viem.assertions.revertWithCustomErrorWithArgs(
        record(operator, alpha.nftId, "buy", "0x", "é".repeat(33)),
        actionLog,
        "FieldTooLong",
        [66n, 64n],
      );
      assert.equal(await actionLog.read.entryCount(), 1n);
    });

    it("rejects targets that are not agent tokens, whoever records", async () => {
      const { queenId, scoutId } = await load();
      for (const caller of [operator, queenOperator]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          record(caller, queenId, "buy"),
          registry,
          "WrongAgentKind",
          [queenId, KIND.Queen],
        );
        await viem.assertions.revertWithCustomErrorWithArgs(
          record(caller, scoutId, "buy"),
          registry,
          "WrongAgentKind",
          [scoutId, KIND.Scout],
        );
        for (const id of [0n, 99n]) {
          await viem.assertions.revertWithCustomErrorWithArgs(record(caller, id, "buy"), registry, "UnknownAgent", [
            id,
          ]);
        }
      }
      assert.equal(await actionLog.read.entryCount(), 0n);
    });
  });

  it("numbers entries globally across tokens and tiers", async () => {
    const { alpha, beta } = await load();
    await record(operator, alpha.nftId, "buy");
    await record(queenOperator, beta.nftId, "directive");
    await record(betaOperator, beta.nftId, "sell");
    await viem.assertions.emitWithArgs(record(scoutOperator, alpha.nftId, "signal"), actionLog, "ActionRecorded", [
      4n,
      alpha.nftId,
      TIER.Scout,
      4n,
      scoutOperator.account.address,
      "signal",
      "0x",
      "",
      false,
    ]);
    const logs = await actionLog.getEvents.ActionRecorded({}, { fromBlock: 0n });
    assert.deepEqual(
      logs.map((log) => [log.args.entryId, log.args.targetTokenId, log.args.sourceTier]),
      [
        [1n, alpha.nftId, TIER.Worker],
        [2n, beta.nftId, TIER.Queen],
        [3n, beta.nftId, TIER.Worker],
        [4n, alpha.nftId, TIER.Scout],
      ],
    );
  });
});
