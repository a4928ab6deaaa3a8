import { describe, it } from "vitest";
import assert from "node:assert/strict";
import { anyValue } from "@nomicfoundation/hardhat-viem-assertions/predicates";
import { type Address, domainSeparator, getAddress, parseEventLogs, parseSignature, zeroAddress } from "viem";
import { deployFixture, EMPTY_METADATA, POOL_SIDE, type Fixture } from "../../support/contracts/fixtures.ts";

type Wallet = Fixture["wallets"]["alice"];

const ONE_TOKEN = 10n ** 18n;
const DEFAULT_SUPPLY = 1_000_000_000n * ONE_TOKEN;

function sameAddress(actual: string, expected: string, message?: string) {
  assert.equal(getAddress(actual), getAddress(expected), message);
}

/** Creation code of an EIP-1167 minimal proxy: an uninitialized clone, as the spawner makes them. */
function minimalProxyInitCode(implementation: Address): `0x${string}` {
  const impl = implementation.slice(2).toLowerCase();
  return `0x3d602d80600a3d3981f3363d3d373d3d3d363d73${impl}5af43d82803e903d91602b57fd5bf3`;
}

describe("AgentToken", async () => {
  const f = await deployFixture();
  const { spawner, stableToken, viem, publicClient, networkHelpers, settings } = f;
  const { admin, alice, bob, carol, dave } = f.wallets;

  async function spawnedToken() {
    const hash = await spawner.write.spawn(["Alpha Agent", "ALPHA", 0n, POOL_SIDE.STABLE, EMPTY_METADATA], {
      account: alice.account,
      value: settings.spawnFee,
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    const [spawned] = parseEventLogs({ abi: spawner.abi, eventName: "AgentSpawned", logs: receipt.logs });
    const token = await viem.getContractAt("AgentToken", spawned.args.token);
    const pool = await viem.getContractAt("AgentPool", spawned.args.pool);
    // The owner gets nothing at spawn: it buys its stake on the curve like everyone.
    await buy(pool, alice, 2_500n * 10n ** 6n);
    const ownerSupply = await token.read.balanceOf([alice.account.address]);
    return { token, pool, poolSupply: spawned.args.poolSupply, ownerSupply };
  }

  async function freshClone() {
    const hash = await admin.deployContract({
      abi: [],
      bytecode: minimalProxyInitCode(f.tokenImplementation.address),
      account: admin.account,
    });
    const { contractAddress } = await publicClient.waitForTransactionReceipt({ hash });
    return viem.getContractAt("AgentToken", contractAddress!);
  }

  async function transfer(token: Fixture["tokenImplementation"], from: Wallet, to: Address, amount: bigint) {
    const hash = await token.write.transfer([to, amount], { account: from.account });
    return publicClient.waitForTransactionReceipt({ hash });
  }

  /** Buys agent tokens from the pool with freshly minted stable tokens. */
  async function buy(pool: Fixture["poolImplementation"], buyer: Wallet, stableAmount: bigint) {
    await stableToken.write.mint([buyer.account.address, stableAmount], { account: buyer.account });
    await stableToken.write.approve([pool.address, stableAmount], { account: buyer.account });
    const hash = await pool.write.swapExactIn([stableToken.address, stableAmount, 0n, buyer.account.address], {
      account: buyer.account,
    });
    return publicClient.waitForTransactionReceipt({ hash });
  }

  describe("ERC-20 surface", () => {
    it("has the spawn's name and symbol, 18 decimals and the full supply", async () => {
      const { token } = await networkHelpers.loadFixture(spawnedToken);
      assert.equal(await token.read.name(), "Alpha Agent");
      assert.equal(await token.read.symbol(), "ALPHA");
      assert.equal(await token.read.decimals(), 18);
      assert.equal(await token.read.totalSupply(), DEFAULT_SUPPLY);
    });

    it("pool() returns the pool created with the token", async () => {
      const { token, pool } = await networkHelpers.loadFixture(spawnedToken);
      sameAddress(await token.read.pool(), pool.address);
      sameAddress(await pool.read.token(), token.address);
    });

    it("moves balances on transfer and transferFrom", async () => {
      const { token, ownerSupply } = await networkHelpers.loadFixture(spawnedToken);
      await transfer(token, alice, bob.account.address, 1_000n);
      await token.write.approve([carol.account.address, 400n], { account: bob.account });
      await token.write.transferFrom([bob.account.address, dave.account.address, 400n], { account: carol.account });
      assert.equal(await token.read.balanceOf([alice.account.address]), ownerSupply - 1_000n);
      assert.equal(await token.read.balanceOf([bob.account.address]), 600n);
      assert.equal(await token.read.balanceOf([dave.account.address]), 400n);
      assert.equal(await token.read.allowance([bob.account.address, carol.account.address]), 0n);
    });
  });

  describe("initialization", () => {
    it("cannot initialize the implementation", async () => {
      await networkHelpers.loadFixture(spawnedToken);
      const implementation = f.tokenImplementation;
      await viem.assertions.revertWithCustomError(
        implementation.write.initialize(["X", "XXX", bob.account.address, [bob.account.address], [1n]]),
        implementation,
        "InvalidInitialization",
      );
      assert.equal(await implementation.read.totalSupply(), 0n);
    });

    it("cannot initialize a spawned clone a second time", async () => {
      const { token } = await networkHelpers.loadFixture(spawnedToken);
      for (const caller of [alice, admin]) {
        await viem.assertions.revertWithCustomError(
          token.write.initialize(["Evil", "EVIL", caller.account.address, [caller.account.address], [ONE_TOKEN]], {
            account: caller.account,
          }),
          token,
          "InvalidInitialization",
        );
      }
      assert.equal(await token.read.totalSupply(), DEFAULT_SUPPLY);
      assert.equal(await token.read.name(), "Alpha Agent");
    });

    it("rejects recipients and amounts of different lengths with LengthMismatch", async () => {
      await networkHelpers.loadFixture(spawnedToken);
      const clone = await freshClone();
      await viem.assertions.revertWithCustomErrorWithArgs(
        clone.write.initialize(["T", "TTT", dave.account.address, [bob.account.address, carol.account.address], [1n]]),
        clone,
        "LengthMismatch",
        [2n, 1n],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        clone.write.initialize(["T", "TTT", dave.account.address, [], [1n]]),
        clone,
        "LengthMismatch",
        [0n, 1n],
      );
    });

    it("mints each recipient its amount once, then refuses a second initialization", async () => {
      await networkHelpers.loadFixture(spawnedToken);
      const clone = await freshClone();
      await clone.write.initialize([
        "Fresh",
        "FRSH",
        dave.account.address,
        [bob.account.address, carol.account.address, bob.account.address, dave.account.address],
        [5n, 7n, 11n, 13n],
      ]);
      assert.equal(await clone.read.name(), "Fresh");
      assert.equal(await clone.read.symbol(), "FRSH");
      sameAddress(await clone.read.pool(), dave.account.address);
      assert.equal(await clone.read.balanceOf([bob.account.address]), 16n);
      assert.equal(await clone.read.balanceOf([carol.account.address]), 7n);
      assert.equal(await clone.read.balanceOf([dave.account.address]), 13n);
      assert.equal(await clone.read.totalSupply(), 36n);
      // Recipients vote from the mint on, except the address given as the pool.
      assert.equal(await clone.read.getVotes([bob.account.address]), 16n);
      assert.equal(await clone.read.getVotes([carol.account.address]), 7n);
      assert.equal(await clone.read.delegates([dave.account.address]), zeroAddress);
      assert.equal(await clone.read.getVotes([dave.account.address]), 0n);
      await viem.assertions.revertWithCustomError(
        clone.write.initialize(["Again", "AGN", dave.account.address, [], []]),
        clone,
        "InvalidInitialization",
      );
    });
  });

  describe("votes", () => {
    it("self-delegates the owner on its first buy: votes equal the balance without a delegate transaction", async () => {
      const { token, ownerSupply } = await networkHelpers.loadFixture(spawnedToken);
      sameAddress(await token.read.delegates([alice.account.address]), alice.account.address);
      assert.equal(await token.read.getVotes([alice.account.address]), ownerSupply);
    });

    it("self-delegates a holder on first receipt", async () => {
      const { token } = await networkHelpers.loadFixture(spawnedToken);
      assert.equal(await token.read.delegates([bob.account.address]), zeroAddress);
      const receipt = await transfer(token, alice, bob.account.address, 1_234n);
      // Bob never sent a transaction: the delegation came with the transfer.
      assert.equal(await publicClient.getTransactionCount({ address: bob.account.address }), 0);
      sameAddress(await token.read.delegates([bob.account.address]), bob.account.address);
      assert.equal(await token.read.getVotes([bob.account.address]), 1_234n);

      const changed = parseEventLogs({ abi: token.abi, eventName: "DelegateChanged", logs: receipt.logs });
      assert.equal(changed.length, 1);
      sameAddress(changed[0].args.delegator, bob.account.address);
      assert.equal(changed[0].args.fromDelegate, zeroAddress);
      sameAddress(changed[0].args.toDelegate, bob.account.address);
    });

    it("emits a DelegateChanged only on the first receipt", async () => {
      const { token } = await networkHelpers.loadFixture(spawnedToken);
      await transfer(token, alice, bob.account.address, 1n);
      const receipt = await transfer(token, alice, bob.account.address, 1n);
      assert.equal(parseEventLogs({ abi: token.abi, eventName: "DelegateChanged", logs: receipt.logs }).length, 0);
      assert.equal(await token.read.getVotes([bob.account.address]), 2n);
    });

    it("never delegates the pool, which holds liquidity rather than votes", async () => {
      const { token, pool, poolSupply, ownerSupply } = await networkHelpers.loadFixture(spawnedToken);
      assert.equal(await token.read.balanceOf([pool.address]), poolSupply - ownerSupply);
      assert.equal(await token.read.delegates([pool.address]), zeroAddress);
      assert.equal(await token.read.getVotes([pool.address]), 0n);

      // Neither a direct transfer nor a sell into the pool delegates it.
      await transfer(token, alice, pool.address, 5n * ONE_TOKEN);
      await buy(pool, carol, 1_000n * 10n ** 6n);
      const tokensOfCarol = await token.read.balanceOf([carol.account.address]);
      await token.write.approve([pool.address, tokensOfCarol], { account: carol.account });
      await pool.write.swapExactIn([token.address, tokensOfCarol / 2n, 0n, carol.account.address], {
        account: carol.account,
      });
      assert.equal(await token.read.delegates([pool.address]), zeroAddress);
      assert.equal(await token.read.getVotes([pool.address]), 0n);
    });

    it("gives buyers from the pool votes equal to what they bought", async () => {
      const { token, pool } = await networkHelpers.loadFixture(spawnedToken);
      await buy(pool, carol, 250n * 10n ** 6n);
      const bought = await token.read.balanceOf([carol.account.address]);
      assert.ok(bought > 0n);
      sameAddress(await token.read.delegates([carol.account.address]), carol.account.address);
      assert.equal(await token.read.getVotes([carol.account.address]), bought);
    });

    it("moves votes with every transfer", async () => {
      const { token, ownerSupply } = await networkHelpers.loadFixture(spawnedToken);
      await transfer(token, alice, bob.account.address, 1_000n * ONE_TOKEN);
      await transfer(token, bob, carol.account.address, 300n * ONE_TOKEN);
      await transfer(token, carol, alice.account.address, 100n * ONE_TOKEN);
      assert.equal(await token.read.getVotes([alice.account.address]), ownerSupply - 900n * ONE_TOKEN);
      assert.equal(await token.read.getVotes([bob.account.address]), 700n * ONE_TOKEN);
      assert.equal(await token.read.getVotes([carol.account.address]), 200n * ONE_TOKEN);
      // Every non-pool token is someone's vote.
      let votes = 0n;
      for (const w of [alice, bob, carol]) votes += await token.read.getVotes([w.account.address]);
      assert.equal(votes, ownerSupply);
    });

    it("respects an explicit delegation, which later receipts do not override", async () => {
      const { token } = await networkHelpers.loadFixture(spawnedToken);
      await transfer(token, alice, bob.account.address, 100n);
      await token.write.delegate([dave.account.address], { account: bob.account });
      assert.equal(await token.read.getVotes([bob.account.address]), 0n);
      assert.equal(await token.read.getVotes([dave.account.address]), 100n);

      await transfer(token, alice, bob.account.address, 50n);
      sameAddress(await token.read.delegates([bob.account.address]), dave.account.address);
      assert.equal(await token.read.getVotes([bob.account.address]), 0n);
      assert.equal(await token.read.getVotes([dave.account.address]), 150n);

      // The delegate's own first receipt self-delegates it and adds to what it was given.
      await transfer(token, alice, dave.account.address, 7n);
      sameAddress(await token.read.delegates([dave.account.address]), dave.account.address);
      assert.equal(await token.read.getVotes([dave.account.address]), 157n);
    });

    it("keeps a delegation chosen before the first receipt", async () => {
      const { token } = await networkHelpers.loadFixture(spawnedToken);
      await token.write.delegate([dave.account.address], { account: carol.account });
      await transfer(token, alice, carol.account.address, 40n);
      sameAddress(await token.read.delegates([carol.account.address]), dave.account.address);
      assert.equal(await token.read.getVotes([carol.account.address]), 0n);
      assert.equal(await token.read.getVotes([dave.account.address]), 40n);
    });

    // Checkpoints are keyed by timestamp (ERC-6372 mode=timestamp), WorkerVoting's clock.
    it("answers getPastVotes and getPastTotalSupply at past timestamps", async () => {
      const { token, ownerSupply } = await networkHelpers.loadFixture(spawnedToken);
      const at = async (receipt: { blockNumber: bigint }) =>
        (await publicClient.getBlock({ blockNumber: receipt.blockNumber })).timestamp;
      const first = { blockNumber: await at(await transfer(token, alice, bob.account.address, 10n * ONE_TOKEN)) };
      await networkHelpers.mine(3);
      const second = { blockNumber: await at(await transfer(token, alice, bob.account.address, 5n * ONE_TOKEN)) };
      await transfer(token, bob, carol.account.address, 12n * ONE_TOKEN);
      await networkHelpers.mine();

      assert.equal(await token.read.getPastVotes([bob.account.address, first.blockNumber - 1n]), 0n);
      assert.equal(await token.read.getPastVotes([bob.account.address, first.blockNumber]), 10n * ONE_TOKEN);
      assert.equal(await token.read.getPastVotes([bob.account.address, second.blockNumber - 1n]), 10n * ONE_TOKEN);
      assert.equal(await token.read.getPastVotes([bob.account.address, second.blockNumber]), 15n * ONE_TOKEN);
      assert.equal(await token.read.getVotes([bob.account.address]), 3n * ONE_TOKEN);
      assert.equal(
        await token.read.getPastVotes([alice.account.address, first.blockNumber]),
        ownerSupply - 10n * ONE_TOKEN,
      );
      assert.equal(await token.read.getPastTotalSupply([first.blockNumber]), DEFAULT_SUPPLY);
    });

    it("refuses to look up a future timestamp", async () => {
      const { token } = await networkHelpers.loadFixture(spawnedToken);
      const now = (await publicClient.getBlock()).timestamp;
      await viem.assertions.revertWithCustomErrorWithArgs(
        token.read.getPastVotes([alice.account.address, now + 10n]),
        token,
        "ERC5805FutureLookup",
        [now + 10n, anyValue],
      );
      assert.equal(await token.read.clock(), Number(now));
      assert.equal(await token.read.CLOCK_MODE(), "mode=timestamp");
    });
  });

  describe("permit", () => {
    async function signPermit(
      token: Fixture["tokenImplementation"],
      owner: Wallet,
      spender: Address,
      value: bigint,
      deadline: bigint,
      nonce?: bigint,
      signer: Wallet = owner,
    ) {
      const signature = await signer.signTypedData({
        account: signer.account,
        domain: {
          name: await token.read.name(),
          version: "1",
          chainId: await publicClient.getChainId(),
          verifyingContract: token.address,
        },
        types: {
          Permit: [
            { name: "owner", type: "address" },
            { name: "spender", type: "address" },
            { name: "value", type: "uint256" },
            { name: "nonce", type: "uint256" },
            { name: "deadline", type: "uint256" },
          ],
        },
        primaryType: "Permit",
        message: {
          owner: owner.account.address,
          spender,
          value,
          nonce: nonce ?? (await token.read.nonces([owner.account.address])),
          deadline,
        },
      });
      const { r, s, v, yParity } = parseSignature(signature);
      return { v: Number(v ?? BigInt(yParity) + 27n), r, s };
    }

    const deadlineIn = async (seconds: bigint) => BigInt(await networkHelpers.time.latest()) + seconds;

    it("uses the EIP-712 domain (token name, version 1, chain id, token address)", async () => {
      const { token } = await networkHelpers.loadFixture(spawnedToken);
      const expected = domainSeparator({
        domain: {
          name: "Alpha Agent",
          version: "1",
          chainId: await publicClient.getChainId(),
          verifyingContract: token.address,
        },
      });
      assert.equal(await token.read.DOMAIN_SEPARATOR(), expected);
    });

    it("sets the allowance from a signature submitted by anyone, then allows transferFrom", async () => {
      const { token, ownerSupply } = await networkHelpers.loadFixture(spawnedToken);
      const value = 77n * ONE_TOKEN;
      const deadline = await deadlineIn(3600n);
      const { v, r, s } = await signPermit(token, alice, bob.account.address, value, deadline);

      await viem.assertions.emitWithArgs(
        token.write.permit([alice.account.address, bob.account.address, value, deadline, v, r, s], {
          account: carol.account,
        }),
        token,
        "Approval",
        [alice.account.address, bob.account.address, value],
      );
      assert.equal(await token.read.allowance([alice.account.address, bob.account.address]), value);
      assert.equal(await token.read.nonces([alice.account.address]), 1n);

      await token.write.transferFrom([alice.account.address, dave.account.address, value], { account: bob.account });
      assert.equal(await token.read.balanceOf([dave.account.address]), value);
      assert.equal(await token.read.balanceOf([alice.account.address]), ownerSupply - value);
    });

    it("rejects a replayed signature", async () => {
      const { token } = await networkHelpers.loadFixture(spawnedToken);
      const deadline = await deadlineIn(3600n);
      const { v, r, s } = await signPermit(token, alice, bob.account.address, 1n, deadline);
      const args = [alice.account.address, bob.account.address, 1n, deadline, v, r, s] as const;
      await token.write.permit(args);
      // With the nonce used, the digest changes and recovers some other address.
      await viem.assertions.revertWithCustomErrorWithArgs(token.write.permit(args), token, "ERC2612InvalidSigner", [
        (recovered: string) => getAddress(recovered) !== getAddress(alice.account.address),
        getAddress(alice.account.address),
      ]);
    });

    it("rejects a signature by someone other than the owner", async () => {
      const { token } = await networkHelpers.loadFixture(spawnedToken);
      const deadline = await deadlineIn(3600n);
      const { v, r, s } = await signPermit(token, alice, bob.account.address, 1n, deadline, 0n, bob);
      await viem.assertions.revertWithCustomErrorWithArgs(
        token.write.permit([alice.account.address, bob.account.address, 1n, deadline, v, r, s]),
        token,
        "ERC2612InvalidSigner",
        [getAddress(bob.account.address), getAddress(alice.account.address)],
      );
      assert.equal(await token.read.allowance([alice.account.address, bob.account.address]), 0n);
    });

    it("rejects an expired permit", async () => {
      const { token } = await networkHelpers.loadFixture(spawnedToken);
      const deadline = await deadlineIn(60n);
      const { v, r, s } = await signPermit(token, alice, bob.account.address, 1n, deadline);
      await networkHelpers.time.increase(120);
      await viem.assertions.revertWithCustomErrorWithArgs(
        token.write.permit([alice.account.address, bob.account.address, 1n, deadline, v, r, s]),
        token,
        "ERC2612ExpiredSignature",
        [deadline],
      );
    });
  });
});
