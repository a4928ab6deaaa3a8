import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "vitest";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { network } from "hardhat";
import { getAddress, hexToString } from "viem";
import { parseEnv, chainEnv } from "../../config/env.ts";
import { deployAndRecord } from "../../scripts/lib/deploy-and-record.ts";
import { readDeployment } from "../../lib/deployments.ts";
import { DEMO_HISTORY_SECONDS } from "../../scripts/lib/demo-clock.ts";
import { DEMO_TOKENS, HOT_WALLET_STABLE_FLOAT, seedDemo } from "../../scripts/lib/seed-demo.ts";

// The scripts behind `npm start`: deploy records what the indexer needs, and the seed leaves
// the demo activity the README promises, on the demo network `npm start` runs its node on (its
// clock starts days back, so the seeded history lies in the past and the chain ends at now).
describe("deploy and seed", async () => {
  const { viem } = await network.create({ network: "demo" });
  const root = await mkdtemp(join(tmpdir(), "deploy-test-"));
  const { deployment, ecosystem } = await deployAndRecord(viem, parseEnv(chainEnv, {}), root);
  const summary = await seedDemo(viem, deployment.contracts, { hotWallet: deployment.accounts.hotWallet });
  const publicClient = await viem.getPublicClient();
  const wallets = await viem.getWalletClients();

  it("records every contract, the start block and the local roles", async () => {
    const onDisk = await readDeployment(31337, root);
    assert.deepEqual(onDisk, deployment);
    assert.equal(onDisk.contracts.AgentSpawner, getAddress(ecosystem.spawner.address));
    for (const address of Object.values(onDisk.contracts)) {
      assert.notEqual(await publicClient.getCode({ address }), undefined, `no code at ${address}`);
    }
    assert.equal(onDisk.accounts.relayer, getAddress(wallets[1].account.address));
    assert.equal(onDisk.accounts.workerOperator, getAddress(wallets[2].account.address));
    // The hot wallet is account #15, which the demo users do not use; it sweeps too. The seed
    // gives it a float of the stable token, for the exchange's withdrawals.
    assert.equal(onDisk.accounts.hotWallet, getAddress(wallets[15].account.address));
    const stable = await viem.getContractAt("MockStableToken", onDisk.contracts.MockStableToken);
    assert.equal(await stable.read.balanceOf([onDisk.accounts.hotWallet!]), HOT_WALLET_STABLE_FLOAT);
    assert.equal(onDisk.accounts.sweeper, onDisk.accounts.hotWallet);
    assert.equal(await ecosystem.depositFactory.read.hotWallet(), onDisk.accounts.hotWallet);
    assert.equal(
      onDisk.contracts.DepositForwarder,
      getAddress(await ecosystem.depositFactory.read.forwarderImplementation()),
    );
    assert.ok(onDisk.startBlock < Number(await publicClient.getBlockNumber()));
    await rm(root, { recursive: true });
  });

  it("spawns the demo tokens on both pool sides, one through the relayer", async () => {
    const spawned = await ecosystem.spawner.getEvents.AgentSpawned({}, { fromBlock: 0n });
    assert.deepEqual(
      spawned.map((e) => e.args.symbol),
      DEMO_TOKENS.map((t) => t.symbol),
    );
    assert.deepEqual(new Set(spawned.map((e) => e.args.poolSide)), new Set([0, 1]));
    const omega = spawned.find((e) => e.args.symbol === "OMEGA")!;
    assert.equal(omega.args.owner, getAddress(wallets[8].account.address));
    assert.equal(await publicClient.getBalance({ address: ecosystem.spawner.address }), 0n);
  });

  it("records every action type, overrides included, from every tier", async () => {
    const actions = await ecosystem.actionLog.getEvents.ActionRecorded({}, { fromBlock: 0n });
    assert.equal(actions.length, summary.actions);
    assert.equal(await ecosystem.actionLog.read.entryCount(), BigInt(summary.actions));
    const types = new Set(actions.map((a) => a.args.actionType));
    for (const type of ["trade", "rebalance", "flag", "directive", "override", "config_update"]) {
      assert.ok(types.has(type), `no ${type} action`);
    }
    assert.deepEqual(new Set(actions.map((a) => a.args.sourceTier)), new Set([1, 2, 3]));
    const overrides = actions.filter((a) => a.args.isOverride);
    assert.equal(overrides.length, summary.overrides);
    assert.ok(overrides.length >= 2);
    for (const action of actions) JSON.parse(hexToString(action.args.payload!));
  });

  it("leaves proposals open, executed and defeated, and an executed config in the registry", async () => {
    const states = await Promise.all(summary.proposals.map((p) => ecosystem.voting.read.state([p.id])));
    // ProposalState: Active 0, Defeated 1, Succeeded 2, Executed 3
    const expected = { open: 0, defeated: 1, executed: 3 } as const;
    assert.deepEqual(
      states,
      summary.proposals.map((p) => expected[p.state]),
    );
    const alpha = summary.tokens.find((t) => t.symbol === "ALPHA")!;
    const worker = await ecosystem.registry.read.getWorker([alpha.workerId]);
    assert.equal(worker.config.slippageCapBps, 50);
    const votes = await ecosystem.voting.getEvents.VoteCast({}, { fromBlock: 0n });
    assert.equal(votes.length, summary.votes);
  });

  it("sets worker statuses, boosts and trades", async () => {
    const statuses = await Promise.all(
      summary.tokens.map(async (t) => (await ecosystem.registry.read.getWorker([t.workerId])).status),
    );
    assert.deepEqual(statuses, [0, 0, 0, 1, 2]);
    for (const { symbol, tier } of summary.boosts) {
      const t = summary.tokens.find((x) => x.symbol === symbol)!;
      const [active, boostedTier] = await ecosystem.booster.read.boostOf([t.nftId]);
      assert.equal(active, true);
      assert.equal(boostedTier, tier);
    }
    let swaps = 0;
    for (const t of summary.tokens) {
      const pool = await viem.getContractAt("AgentPool", t.pool);
      swaps += (await pool.getEvents.Swap({}, { fromBlock: 0n })).length;
    }
    assert.equal(swaps, summary.swaps);
  });

  it("ends the seeded history at the wall clock, which the chain's clock then follows", async () => {
    const wall = () => Date.now() / 1000;
    const head = Number((await publicClient.getBlock()).timestamp);
    assert.ok(Math.abs(head - wall()) < 120, `chain time ${head} vs wall clock ${wall()}`);
    assert.equal(summary.clockAheadSeconds, 0);
    // History starts DEMO_HISTORY_SECONDS back: the spawns are days old, not seconds.
    const spawned = await ecosystem.spawner.getEvents.AgentSpawned({}, { fromBlock: 0n });
    const spawnTime = Number((await publicClient.getBlock({ blockNumber: spawned[0].blockNumber })).timestamp);
    assert.ok(wall() - spawnTime > DEMO_HISTORY_SECONDS - 3600, `first spawn ${(wall() - spawnTime) / 3600} h ago`);
    // Both eras: actions more than a day old and actions of the last day; the open proposals stay
    // open for days after the seed.
    const actions = await ecosystem.actionLog.getEvents.ActionRecorded({}, { fromBlock: 0n });
    const times = await Promise.all(
      actions.map(async (a) => Number((await publicClient.getBlock({ blockNumber: a.blockNumber })).timestamp)),
    );
    assert.ok(times.some((t) => t < wall() - 86_400) && times.some((t) => t > wall() - 86_400));
    for (const { id } of summary.proposals.filter((p) => p.state === "open")) {
      const { endTime } = await ecosystem.voting.read.getProposal([id]);
      assert.ok(Number(endTime) > wall() + 2 * 86_400, `proposal ${id} closes ${endTime}`);
    }
    // A block mined seconds later is stamped with the wall clock, not a moved one.
    await sleep(2_000);
    const testClient = await viem.getTestClient();
    await testClient.mine({ blocks: 1 });
    const later = Number((await publicClient.getBlock()).timestamp);
    assert.ok(Math.abs(later - wall()) < 5, `a new block at ${later}, wall clock ${wall()}`);
  });
});
