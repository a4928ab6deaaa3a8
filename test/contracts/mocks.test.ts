import { describe, it } from "vitest";
import assert from "node:assert/strict";
import { parseEther, zeroAddress } from "viem";
import { deployFixture } from "../../support/contracts/fixtures.ts";

describe("mocks", async () => {
  const f = await deployFixture();
  const { stableToken, wrappedNative, viem, networkHelpers, publicClient } = f;
  const { alice, bob } = f.wallets;

  // The deployed mocks are fresh: nothing has been minted or wrapped yet.
  async function mocksFixture() {
    return {};
  }
  const load = () => networkHelpers.loadFixture(mocksFixture);

  describe("MockStableToken", () => {
    it("looks like USDC: Mock USD / mUSD with 6 decimals and no initial supply", async () => {
      await load();
      assert.equal(await stableToken.read.name(), "Mock USD");
      assert.equal(await stableToken.read.symbol(), "mUSD");
      assert.equal(await stableToken.read.decimals(), 6);
      assert.equal(await stableToken.read.totalSupply(), 0n);
    });

    it("lets anyone mint to anyone", async () => {
      await load();
      const amount = 2_500n * 10n ** 6n;
      await viem.assertions.emitWithArgs(
        stableToken.write.mint([bob.account.address, amount], { account: alice.account }),
        stableToken,
        "Transfer",
        [zeroAddress, bob.account.address, amount],
      );
      await stableToken.write.mint([bob.account.address, 1n], { account: bob.account });
      assert.equal(await stableToken.read.balanceOf([bob.account.address]), amount + 1n);
      assert.equal(await stableToken.read.balanceOf([alice.account.address]), 0n);
      assert.equal(await stableToken.read.totalSupply(), amount + 1n);
    });

    it("transfers minted balances like any ERC-20", async () => {
      await load();
      await stableToken.write.mint([alice.account.address, 100n], { account: alice.account });
      await stableToken.write.transfer([bob.account.address, 40n], { account: alice.account });
      assert.equal(await stableToken.read.balanceOf([alice.account.address]), 60n);
      assert.equal(await stableToken.read.balanceOf([bob.account.address]), 40n);
      await viem.assertions.revertWithCustomErrorWithArgs(
        stableToken.write.transfer([alice.account.address, 41n], { account: bob.account }),
        stableToken,
        "ERC20InsufficientBalance",
        [bob.account.address, 40n, 41n],
      );
    });
  });

  describe("WrappedNative", () => {
    it("is Wrapped Ether / WETH with 18 decimals", async () => {
      await load();
      assert.equal(await wrappedNative.read.name(), "Wrapped Ether");
      assert.equal(await wrappedNative.read.symbol(), "WETH");
      assert.equal(await wrappedNative.read.decimals(), 18);
    });

    it("deposit wraps the ether sent, 1:1", async () => {
      await load();
      const amount = parseEther("1.5");
      const hash = await wrappedNative.write.deposit({ account: alice.account, value: amount });
      await viem.assertions.emitWithArgs(Promise.resolve(hash), wrappedNative, "Deposit", [
        alice.account.address,
        amount,
      ]);
      await viem.assertions.emitWithArgs(Promise.resolve(hash), wrappedNative, "Transfer", [
        zeroAddress,
        alice.account.address,
        amount,
      ]);
      await viem.assertions.balancesHaveChanged(Promise.resolve(hash), [
        { address: alice.account.address, amount: -amount },
        { address: wrappedNative.address, amount },
      ]);
      assert.equal(await wrappedNative.read.balanceOf([alice.account.address]), amount);
      assert.equal(await wrappedNative.read.totalSupply(), amount);
    });

    it("a plain ether transfer deposits through receive", async () => {
      await load();
      const amount = parseEther("0.25");
      const hash = await bob.sendTransaction({ to: wrappedNative.address, value: amount });
      await viem.assertions.emitWithArgs(Promise.resolve(hash), wrappedNative, "Deposit", [
        bob.account.address,
        amount,
      ]);
      await viem.assertions.balancesHaveChanged(Promise.resolve(hash), [
        { address: bob.account.address, amount: -amount },
        { address: wrappedNative.address, amount },
      ]);
      assert.equal(await wrappedNative.read.balanceOf([bob.account.address]), amount);
    });

    it("withdraw burns and returns the ether", async () => {
      await load();
      const deposited = parseEther("2");
      const withdrawn = parseEther("0.75");
      await wrappedNative.write.deposit({ account: alice.account, value: deposited });
      const hash = await wrappedNative.write.withdraw([withdrawn], { account: alice.account });
      await viem.assertions.emitWithArgs(Promise.resolve(hash), wrappedNative, "Withdrawal", [
        alice.account.address,
        withdrawn,
      ]);
      await viem.assertions.emitWithArgs(Promise.resolve(hash), wrappedNative, "Transfer", [
        alice.account.address,
        zeroAddress,
        withdrawn,
      ]);
      await viem.assertions.balancesHaveChanged(Promise.resolve(hash), [
        { address: alice.account.address, amount: withdrawn },
        { address: wrappedNative.address, amount: -withdrawn },
      ]);
      assert.equal(await wrappedNative.read.balanceOf([alice.account.address]), deposited - withdrawn);
      assert.equal(await wrappedNative.read.totalSupply(), deposited - withdrawn);
      // The contract stays fully backed.
      assert.equal(await publicClient.getBalance({ address: wrappedNative.address }), deposited - withdrawn);
    });

    it("withdraw rejects more than the caller's balance, even when the contract holds more", async () => {
      await load();
      await wrappedNative.write.deposit({ account: alice.account, value: parseEther("3") });
      await wrappedNative.write.deposit({ account: bob.account, value: parseEther("1") });
      await viem.assertions.revertWithCustomErrorWithArgs(
        wrappedNative.write.withdraw([parseEther("1") + 1n], { account: bob.account }),
        wrappedNative,
        "ERC20InsufficientBalance",
        [bob.account.address, parseEther("1"), parseEther("1") + 1n],
      );
      await wrappedNative.write.withdraw([parseEther("1")], { account: bob.account });
      assert.equal(await wrappedNative.read.balanceOf([bob.account.address]), 0n);
      assert.equal(await publicClient.getBalance({ address: wrappedNative.address }), parseEther("3"));
    });
  });
});
