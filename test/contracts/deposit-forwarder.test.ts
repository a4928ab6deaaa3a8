import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { getAddress, keccak256, parseEther, parseEventLogs, toHex, zeroAddress } from "viem";
import { depositAddress } from "../../lib/deposit-address.ts";
import { ROLE } from "../../scripts/lib/deploy-ecosystem.ts";
import { deployFixture } from "../../support/contracts/fixtures.ts";

// The deposit factory as deployEcosystem deploys it, in separate transactions as the exchange
// sends them (contracts/test/DepositForwarder.t.sol covers the rules in one EVM call each).
describe("DepositForwarderFactory", async () => {
  const f = await deployFixture();
  const { depositFactory, depositForwarderImplementation, stableToken, publicClient, wallets } = f;
  const asSweeper = { account: wallets.sweeper.account };

  it("is wired to the hot wallet and the sweeper", async () => {
    assert.equal(await depositFactory.read.hotWallet(), getAddress(wallets.hotWallet.account.address));
    assert.equal(await depositFactory.read.hasRole([ROLE.SWEEPER, wallets.sweeper.account.address]), true);
    assert.equal(await depositFactory.read.hasRole([ROLE.SWEEPER, wallets.admin.account.address]), false);
    assert.equal(await depositFactory.read.SWEEPER_ROLE(), ROLE.SWEEPER);
  });

  it("computes the deposit address off-chain as the factory does", async () => {
    for (const userId of ["1", "42", "user-7f3a"]) {
      const salt = keccak256(toHex(userId));
      assert.equal(
        depositAddress(depositFactory.address, depositForwarderImplementation, salt),
        await depositFactory.read.depositAddress([salt]),
      );
    }
  });

  it("sweeps deposits made before deployment to the hot wallet, one Swept per asset", async () => {
    const salt = keccak256(toHex("user-1"));
    const forwarder = depositAddress(depositFactory.address, depositForwarderImplementation, salt);
    await stableToken.write.mint([forwarder, 123_000_000n]);
    await publicClient.waitForTransactionReceipt({
      hash: await wallets.alice.sendTransaction({ to: forwarder, value: parseEther("1.5") }),
    });
    const hotBefore = await publicClient.getBalance({ address: wallets.hotWallet.account.address });

    const hash = await depositFactory.write.sweep([salt, [stableToken.address]], asSweeper);
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    const swept = parseEventLogs({ abi: depositFactory.abi, logs: receipt.logs, eventName: "Swept" });

    assert.deepEqual(
      swept.map((e) => [e.args.salt, e.args.forwarder, e.args.token, e.args.amount]),
      [
        [salt, forwarder, zeroAddress, parseEther("1.5")],
        [salt, forwarder, getAddress(stableToken.address), 123_000_000n],
      ],
    );
    assert.equal(await stableToken.read.balanceOf([wallets.hotWallet.account.address]), 123_000_000n);
    assert.equal(
      await publicClient.getBalance({ address: wallets.hotWallet.account.address }),
      hotBefore + parseEther("1.5"),
    );
    assert.equal(await publicClient.getBalance({ address: forwarder }), 0n);
  });

  // IDepositForwarder's documented limit: in a transaction of its own the implementation is cold,
  // and a DELEGATECALL to it costs more than the 2,300 gas a `transfer` forwards.
  it("takes plain native transfers once deployed, but not with only 2,300 gas to run on", async () => {
    const salt = keccak256(toHex("user-2"));
    const counterfactual = await depositFactory.read.depositAddress([salt]);
    const bare = { account: wallets.alice.account.address, to: counterfactual, value: 1n, gas: 21_000n };
    await publicClient.call(bare);
    await publicClient.waitForTransactionReceipt({
      hash: await depositFactory.write.sweep([salt, []], asSweeper),
    });
    const forwarder = await depositFactory.read.depositAddress([salt]);
    assert.notEqual(await publicClient.getCode({ address: forwarder }), undefined);

    const plain = await publicClient.waitForTransactionReceipt({
      hash: await wallets.alice.sendTransaction({ to: forwarder, value: 1n }),
    });
    assert.equal(plain.status, "success");
    await assert.rejects(
      publicClient.call({ account: wallets.alice.account.address, to: forwarder, value: 1n, gas: 21_000n + 2_300n }),
    );
  });
});
