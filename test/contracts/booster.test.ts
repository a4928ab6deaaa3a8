import { describe, it } from "vitest";
import assert from "node:assert/strict";
import { getAddress, parseAbi, parseEther, parseEventLogs, zeroAddress, zeroHash } from "viem";
import { deployFixture, TIER, spawnToken as spawnAgentToken } from "../../support/contracts/fixtures.ts";

const HOUR = 3600n;
const DAY = 24n * HOUR;
// The deployment's default tiers, written out rather than read back from the contract.
const TIERS = {
  1: { price: parseEther("0.01"), duration: DAY },
  2: { price: parseEther("0.05"), duration: 3n * DAY },
  3: { price: parseEther("0.1"), duration: 7n * DAY },
} as const;
const KIND_QUEEN = 1;

describe("Booster", async () => {
  const f = await deployFixture();
  const { booster, registry, viem, networkHelpers, publicClient } = f;
  const { time } = networkHelpers;
  const { admin, treasury, alice, bob, carol, dave } = f.wallets;
  const [, , , , , , , , queenOperator, newTreasury] = await viem.getWalletClients();
  type Wallet = typeof alice;

  async function spawnToken(owner: Wallet, symbol: string) {
    return spawnAgentToken(f, owner, symbol);
  }

  async function boosterFixture() {
    const alpha = await spawnToken(alice, "ALPHA");
    const beta = await spawnToken(bob, "BETA");
    await registry.write.registerAgent([TIER.Queen, queenOperator.account.address, carol.account.address], {
      account: admin.account,
    });
    return { alpha, beta, queenId: 3n };
  }
  const load = () => networkHelpers.loadFixture(boosterFixture);

  function boost(buyer: Wallet, nftId: bigint, tier: 1 | 2 | 3, value: bigint = TIERS[tier].price) {
    return booster.write.boost([nftId, tier], { account: buyer.account, value });
  }

  /** Boosts with the next block at `at` and returns the expiry the contract reported. */
  async function boostAt(at: bigint, buyer: Wallet, nftId: bigint, tier: 1 | 2 | 3) {
    await time.setNextBlockTimestamp(at);
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await boost(buyer, nftId, tier) });
    const [event] = parseEventLogs({ abi: booster.abi, eventName: "Boosted", logs: receipt.logs });
    return event.args.expiresAt;
  }

  async function now() {
    return BigInt(await time.latest());
  }

  describe("configuration", () => {
    it("deploys with the treasury and the three default tiers", async () => {
      await load();
      assert.equal(getAddress(await booster.read.treasury()), getAddress(treasury.account.address));
      for (const tier of [1, 2, 3] as const) {
        assert.deepEqual(await booster.read.tierConfig([tier]), {
          price: TIERS[tier].price,
          duration: TIERS[tier].duration,
          enabled: true,
        });
      }
      assert.deepEqual(await booster.read.tierConfig([4]), { price: 0n, duration: 0n, enabled: false });
    });

    it("configureTier adds or changes a tier and emits TierConfigured", async () => {
      const { alpha } = await load();
      await viem.assertions.emitWithArgs(
        booster.write.configureTier([4, parseEther("1"), 30n * DAY, true], { account: admin.account }),
        booster,
        "TierConfigured",
        [4, parseEther("1"), 30n * DAY, true],
      );
      assert.deepEqual(await booster.read.tierConfig([4]), {
        price: parseEther("1"),
        duration: 30n * DAY,
        enabled: true,
      });
      const at = (await now()) + 10n;
      await time.setNextBlockTimestamp(at);
      await viem.assertions.emitWithArgs(
        booster.write.boost([alpha.nftId, 4], { account: dave.account, value: parseEther("1") }),
        booster,
        "Boosted",
        [alpha.nftId, alpha.token, dave.account.address, 4, at + 30n * DAY, parseEther("1")],
      );
    });

    it("configureTier rejects tier 0, a zero duration and a price above 120 bits", async () => {
      await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        booster.write.configureTier([0, 1n, DAY, true], { account: admin.account }),
        booster,
        "UnknownTier",
        [0],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        booster.write.configureTier([1, 1n, 0n, true], { account: admin.account }),
        booster,
        "InvalidDuration",
        [0n],
      );
      // Prices are stored beside each boost's credit rate, in 120 bits.
      const tooDear = 2n ** 120n;
      await viem.assertions.revertWithCustomErrorWithArgs(
        booster.write.configureTier([1, tooDear, DAY, true], { account: admin.account }),
        booster,
        "InvalidPrice",
        [tooDear],
      );
      await booster.write.configureTier([4, tooDear - 1n, DAY, true], { account: admin.account });
      assert.deepEqual(await booster.read.tierConfig([1]), { ...TIERS[1], enabled: true });
    });

    it("setTreasury redirects payments and emits TreasuryUpdated", async () => {
      const { alpha } = await load();
      await viem.assertions.emitWithArgs(
        booster.write.setTreasury([newTreasury.account.address], { account: admin.account }),
        booster,
        "TreasuryUpdated",
        [treasury.account.address, newTreasury.account.address],
      );
      assert.equal(getAddress(await booster.read.treasury()), getAddress(newTreasury.account.address));
      await viem.assertions.balancesHaveChanged(boost(dave, alpha.nftId, 1), [
        { address: newTreasury.account.address, amount: TIERS[1].price },
        { address: treasury.account.address, amount: 0n },
      ]);
    });

    it("setTreasury rejects the zero address", async () => {
      await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        booster.write.setTreasury([zeroAddress], { account: admin.account }),
        booster,
        "InvalidAddress",
        [zeroAddress],
      );
    });

    it("admin functions reject everyone else, token owners included", async () => {
      await load();
      for (const caller of [alice, treasury]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          booster.write.configureTier([1, 0n, DAY, true], { account: caller.account }),
          booster,
          "AccessControlUnauthorizedAccount",
          [caller.account.address, zeroHash],
        );
        await viem.assertions.revertWithCustomErrorWithArgs(
          booster.write.setTreasury([caller.account.address], { account: caller.account }),
          booster,
          "AccessControlUnauthorizedAccount",
          [caller.account.address, zeroHash],
        );
      }
      assert.equal(getAddress(await booster.read.treasury()), getAddress(treasury.account.address));
    });
  });

  describe("boost", () => {
    for (const tier of [1, 2, 3] as const) {
      it(`tier ${tier}: sends exactly the price to the treasury and keeps nothing`, async () => {
        const { alpha } = await load();
        const { price } = TIERS[tier];
        await viem.assertions.balancesHaveChanged(boost(dave, alpha.nftId, tier), [
          { address: dave.account.address, amount: -price },
          { address: treasury.account.address, amount: price },
          { address: booster.address, amount: 0n },
        ]);
        assert.equal(await publicClient.getBalance({ address: booster.address }), 0n);
      });
    }

    it("emits Boosted and reports an active boost until expiry", async () => {
      const { beta } = await load();
      const at = (await now()) + 60n;
      await time.setNextBlockTimestamp(at);
      const expiresAt = at + TIERS[2].duration;
      await viem.assertions.emitWithArgs(boost(carol, beta.nftId, 2), booster, "Boosted", [
        beta.nftId,
        beta.token,
        carol.account.address,
        2,
        expiresAt,
        TIERS[2].price,
      ]);
      assert.deepEqual(await booster.read.boostOf([beta.nftId]), [true, 2, expiresAt]);
      // Other tokens are unaffected.
      assert.deepEqual(await booster.read.boostOf([1n]), [false, 0, 0n]);
    });

    it("anyone may boost any token, repeatedly", async () => {
      const { alpha } = await load();
      const first = await boostAt((await now()) + 10n, alice, alpha.nftId, 1);
      const second = await boostAt((await now()) + 10n, bob, alpha.nftId, 1);
      assert.equal(second, first + TIERS[1].duration);
    });

    it("the same tier extends from the current expiry", async () => {
      const { alpha } = await load();
      const t0 = (await now()) + 10n;
      const first = await boostAt(t0, dave, alpha.nftId, 1);
      assert.equal(first, t0 + DAY);
      const second = await boostAt(t0 + 5n * HOUR, dave, alpha.nftId, 1);
      assert.equal(second, t0 + 2n * DAY);
      assert.deepEqual(await booster.read.boostOf([alpha.nftId]), [true, 1, t0 + 2n * DAY]);
    });

    it("a higher tier upgrades: the time left is credited at the price it was bought at", async () => {
      const { alpha } = await load();
      const t0 = (await now()) + 10n;
      await boostAt(t0, dave, alpha.nftId, 1);
      const t1 = t0 + 2n * HOUR;
      // 22 hours of tier 1 (0.01 a day) are worth 15.4 hours of tier 3 (0.1 a week), plus its week.
      const upgraded = t1 + 55_440n + 7n * DAY;
      assert.equal(await boostAt(t1, dave, alpha.nftId, 3), upgraded);
      assert.deepEqual(await booster.read.boostOf([alpha.nftId]), [true, 3, upgraded]);
      // A dearer tier gives fewer, dearer seconds: the expiry comes closer, the value stays.
      await booster.write.configureTier([4, TIERS[1].price, HOUR, true], { account: admin.account });
      const t2 = t1 + HOUR;
      // 182.4 hours of tier 3 are worth 10.857 hours at 0.01 an hour (39,085 s, rounded down).
      await time.setNextBlockTimestamp(t2);
      await booster.write.boost([alpha.nftId, 4], { account: bob.account, value: TIERS[1].price });
      assert.deepEqual(await booster.read.boostOf([alpha.nftId]), [true, 4, t2 + 39_085n + HOUR]);
    });

    // Issue 24, finding 7: the upgrade kept all sixty days, at tier 3, for 0.7 (they list at 0.857).
    it("sixty tier-1 days then a tier-3 boost buy 49 days of tier 3, not sixty", async () => {
      const { alpha } = await load();
      const t0 = (await now()) + 10n;
      for (let i = 0n; i < 60n; i++) await boostAt(t0 + i, dave, alpha.nftId, 1);
      assert.deepEqual(await booster.read.boostOf([alpha.nftId]), [true, 1, t0 + 60n * DAY]);
      // 60 days less the 60 s the boosts took, each tier-1 second worth 0.7 of a tier-3 second.
      const expiresAt = await boostAt(t0 + 60n, dave, alpha.nftId, 3);
      assert.equal(expiresAt, t0 + 60n + 3_628_758n + 7n * DAY);
      // The event carries the new tier and expiry: what the indexer stores.
      assert.deepEqual(await booster.read.boostOf([alpha.nftId]), [true, 3, expiresAt]);
    });

    // BoostUpgrade.t.sol checks the quote against every boost of its fuzz runs.
    it("quoteBoost gives the expiry a boost would set, and reverts as the boost would", async () => {
      const { alpha, queenId } = await load();
      const expiresAt = await boostAt((await now()) + 10n, dave, alpha.nftId, 3);
      assert.equal(await booster.read.quoteBoost([alpha.nftId, 3]), expiresAt + TIERS[3].duration);
      await viem.assertions.revertWithCustomErrorWithArgs(
        booster.read.quoteBoost([alpha.nftId, 1]),
        booster,
        "BoostDowngrade",
        [alpha.nftId, 3, 1, expiresAt],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        booster.read.quoteBoost([alpha.nftId, 4]),
        booster,
        "UnknownTier",
        [4],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        booster.read.quoteBoost([queenId, 1]),
        registry,
        "WrongAgentKind",
        [queenId, KIND_QUEEN],
      );
    });

    // Issue 9, item 6: a tier-3 boost paid at 0.1 was replaced by a stranger's tier 1 for 0.01.
    it("nobody can downgrade an active boost: a lower tier reverts with BoostDowngrade", async () => {
      const { alpha } = await load();
      const t0 = (await now()) + 10n;
      const paidUntil = await boostAt(t0, dave, alpha.nftId, 3);
      for (const [buyer, tier] of [
        [bob, 1],
        [carol, 2],
        [dave, 1],
      ] as const) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          boost(buyer, alpha.nftId, tier),
          booster,
          "BoostDowngrade",
          [alpha.nftId, 3, tier, paidUntil],
        );
      }
      assert.deepEqual(await booster.read.boostOf([alpha.nftId]), [true, 3, paidUntil]);
      // Once it expired, any tier starts afresh.
      await time.setNextBlockTimestamp(paidUntil);
      await boost(bob, alpha.nftId, 1);
      assert.deepEqual(await booster.read.boostOf([alpha.nftId]), [true, 1, paidUntil + DAY]);
    });

    it("expires at expiresAt and a later boost of the same tier starts from now", async () => {
      const { alpha } = await load();
      const t0 = (await now()) + 10n;
      const expiresAt = await boostAt(t0, dave, alpha.nftId, 1);
      await time.increaseTo(expiresAt - 1n);
      assert.deepEqual(await booster.read.boostOf([alpha.nftId]), [true, 1, expiresAt]);
      await time.increaseTo(expiresAt);
      assert.deepEqual(await booster.read.boostOf([alpha.nftId]), [false, 1, expiresAt]);
      const t1 = expiresAt + HOUR;
      assert.equal(await boostAt(t1, dave, alpha.nftId, 1), t1 + DAY);
      assert.equal((await booster.read.boostOf([alpha.nftId]))[0], true);
    });

    it("rejects a payment below or above the price, or none", async () => {
      const { alpha } = await load();
      const { price } = TIERS[2];
      for (const sent of [price - 1n, price + 1n, 0n, TIERS[3].price]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          boost(dave, alpha.nftId, 2, sent),
          booster,
          "IncorrectPayment",
          [sent, price],
        );
      }
      assert.deepEqual(await booster.read.boostOf([alpha.nftId]), [false, 0, 0n]);
    });

    it("rejects tier 0, unconfigured tiers and disabled tiers", async () => {
      const { alpha } = await load();
      for (const tier of [0, 4, 255]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          booster.write.boost([alpha.nftId, tier], { account: dave.account, value: 0n }),
          booster,
          "UnknownTier",
          [tier],
        );
      }
      await booster.write.configureTier([2, TIERS[2].price, TIERS[2].duration, false], { account: admin.account });
      await viem.assertions.revertWithCustomErrorWithArgs(boost(dave, alpha.nftId, 2), booster, "UnknownTier", [2]);
      // Re-enabling restores it.
      await booster.write.configureTier([2, TIERS[2].price, TIERS[2].duration, true], { account: admin.account });
      await boost(dave, alpha.nftId, 2);
      assert.equal((await booster.read.boostOf([alpha.nftId]))[1], 2);
    });

    it("a free tier records the boost without moving funds", async () => {
      const { alpha } = await load();
      await booster.write.configureTier([5, 0n, HOUR, true], { account: admin.account });
      const at = (await now()) + 10n;
      await time.setNextBlockTimestamp(at);
      await viem.assertions.balancesHaveChanged(
        booster.write.boost([alpha.nftId, 5], { account: dave.account, value: 0n }),
        [{ address: treasury.account.address, amount: 0n }],
      );
      assert.deepEqual(await booster.read.boostOf([alpha.nftId]), [true, 5, at + HOUR]);
    });

    it("rejects unknown NFT ids and NFTs that are not agent tokens", async () => {
      const { queenId } = await load();
      for (const id of [0n, 99n]) {
        await viem.assertions.revertWithCustomErrorWithArgs(boost(dave, id, 1), registry, "UnknownAgent", [id]);
      }
      await viem.assertions.revertWithCustomErrorWithArgs(boost(dave, queenId, 1), registry, "WrongAgentKind", [
        queenId,
        KIND_QUEEN,
      ]);
      assert.deepEqual(await booster.read.boostOf([queenId]), [false, 0, 0n]);
    });

    it("reverts as a whole when the treasury refuses the payment", async () => {
      const { alpha } = await load();
      // The registry has no receive function, so it cannot take ether.
      await booster.write.setTreasury([registry.address], { account: admin.account });
      // OpenZeppelin's Address.sendValue reports the failed transfer as FailedCall().
      const sendValueErrors = { address: booster.address, abi: parseAbi(["error FailedCall()"]) };
      await viem.assertions.revertWithCustomError(boost(dave, alpha.nftId, 1), sendValueErrors, "FailedCall");
      assert.deepEqual(await booster.read.boostOf([alpha.nftId]), [false, 0, 0n]);
      assert.equal(await publicClient.getBalance({ address: booster.address }), 0n);
    });
  });
});
