import { describe, it } from "vitest";
import assert from "node:assert/strict";
import { parseEther } from "viem";
import { deployFixture, EMPTY_METADATA, POOL_SIDE } from "../../support/contracts/fixtures.ts";

describe("ecosystem smoke", () => {
  it("spawns a token with pool, NFT and worker in one transaction", async () => {
    const f = await deployFixture();
    const { spawner, registry, wallets, viem } = f;
    const hash = await spawner.write.spawn(["Alpha Agent", "ALPHA", 0n, POOL_SIDE.STABLE, EMPTY_METADATA], {
      account: wallets.alice.account,
      value: parseEther("0.01"),
    });
    await f.publicClient.waitForTransactionReceipt({ hash });
    const events = await spawner.getEvents.AgentSpawned();
    assert.equal(events.length, 1);
    const { token, pool, nftId, workerId } = events[0].args;
    const agentToken = await viem.getContractAt("AgentToken", token!);
    assert.equal(await agentToken.read.totalSupply(), parseEther("1000000000"));
    assert.equal((await registry.read.ownerOf([nftId!])).toLowerCase(), wallets.alice.account.address.toLowerCase());
    assert.equal((await registry.read.getWorker([workerId!])).token, token);
    const agentPool = await viem.getContractAt("AgentPool", pool!);
    const [reserveToken, reservePair, virtualPair] = await agentPool.read.getReserves();
    // The whole supply is in the pool: the creator got nothing for free.
    assert.equal(reserveToken, parseEther("1000000000"));
    assert.equal(await agentToken.read.balanceOf([wallets.alice.account.address]), 0n);
    assert.equal(reservePair, 0n);
    assert.equal(virtualPair, 10_000n * 10n ** 6n);
  });
});
