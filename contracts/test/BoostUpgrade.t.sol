// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAgentSpawner} from "../interfaces/IAgentSpawner.sol";
import {IBooster} from "../interfaces/IBooster.sol";
import {EcosystemTest} from "./utils/EcosystemTest.sol";

/// @notice Issue 24, finding 7: sixty tier-1 days (0.6 at 0.01 a day) then one tier-3 boost (0.1)
/// gave sixty days of tier 3, which list at 0.857. An upgrade now carries the time left as credit
/// at the rate it was bought at, so no sequence of boosts is worth more, at list prices, than it paid.
/// Value is counted in wei scaled by the product of the tier durations, so every per-second rate
/// is an exact integer.
contract BoostUpgradeTest is EcosystemTest {
    uint8 private constant TIERS = 4;
    uint256 private constant STEPS = 48;

    uint256 private nftId;
    address private buyer;

    function setUp() public override {
        super.setUp();
        nftId = _spawn(alice, "ALPHA", IAgentSpawner.PoolSide.STABLE).nftId;
        buyer = makeAddr("buyer");
    }

    // ---------------------------------------------------------------- the finding

    function test_SixtyTierOneDaysThenATierThreeBoostBuyOnlyWhatTheyPaidFor() public {
        uint256 t0 = block.timestamp;
        for (uint256 i; i < 60; ++i) _boost(1);
        _assertBoost(1, t0 + 60 days);
        // 0.6 of tier-1 time buys 42 days of tier 3 at 0.1 a week; plus the week just bought.
        assertEq(_boost(3), t0 + 49 days, "upgrade kept the tier-1 days at tier 3");
        _assertBoost(3, t0 + 49 days);
        // 49 days of tier 3 list at exactly the 0.7 paid.
        assertEq((uint256(49 days) * 0.1 ether) / 7 days, uint256(60 * 0.01 ether + 0.1 ether));
    }

    function test_AnUpgradeRightBeforeExpiryCarriesOnlyTheSecondsLeft() public {
        uint256 expiresAt = _boost(1);
        vm.warp(expiresAt - 1);
        // One tier-1 second is worth 0.7 of a tier-3 second: rounded down to nothing.
        assertEq(_boost(3), block.timestamp + 7 days);
    }

    function test_InterleavedUpgradesAreWorthExactlyWhatWasPaid() public {
        uint256 t0 = block.timestamp;
        for (uint256 i; i < 6; ++i) _boost(1); // 0.06: 6 days of tier 1
        vm.warp(t0 + 1 days); // 5 days left, worth 0.05
        // 0.05 buys 3 days of tier 2 at 0.05 per 3 days, plus the 3 days just bought.
        assertEq(_boost(2), t0 + 1 days + 6 days);
        vm.warp(t0 + 2 days); // 5 days of tier 2 left, worth 0.25 / 3
        // 0.25 / 3 buys 35 / 6 days (504,000 s) of tier 3 at 0.1 a week, plus a week.
        assertEq(_boost(3), t0 + 2 days + 504_000 + 7 days);
    }

    function test_ASameTierBoostExtendsFromTheCurrentExpiry() public {
        uint256 first = _boost(2);
        vm.warp(block.timestamp + 1 days);
        assertEq(_boost(2), first + 3 days);
    }

    /// @dev The credit is the rate the time was bought at, not today's list price: time bought in a
    /// sale must not be worth the full price once the sale ends.
    function test_TimeBoughtInASaleIsCreditedAtTheSalePrice() public {
        uint256 t0 = block.timestamp;
        _configure(1, 0.001 ether, 1 days);
        for (uint256 i; i < 60; ++i) _boost(1); // 0.06
        _configure(1, 0.01 ether, 1 days);
        // 0.06 buys 4.2 days of tier 3, plus a week.
        assertEq(_boost(3), t0 + 362_880 + 7 days, "sale-priced days credited at list price");
    }

    /// @dev Extending the same tier after a price rise keeps adding its duration, but the credit
    /// stays at the cheaper rate: one full-price day must not revalue sixty sale-priced ones.
    function test_ABoostAtAHigherPriceDoesNotRevalueTimeBoughtInASale() public {
        uint256 t0 = block.timestamp;
        _configure(1, 0.001 ether, 1 days);
        for (uint256 i; i < 60; ++i) _boost(1);
        _configure(1, 0.01 ether, 1 days);
        assertEq(_boost(1), t0 + 61 days, "a same-tier boost is additive");
        // 61 days at the sale rate are worth 0.061: 4.27 days of tier 3.
        assertEq(_boost(3), t0 + 368_928 + 7 days, "sale-priced days revalued");
    }

    function test_NobodyDowngradesAnActiveBoostTheTokenOwnerIncluded() public {
        uint64 expiresAt = _boost(3);
        for (uint8 tier = 1; tier < 3; ++tier) {
            uint256 price = booster.tierConfig(tier).price;
            vm.deal(alice, price);
            vm.prank(alice);
            vm.expectRevert(abi.encodeWithSelector(IBooster.BoostDowngrade.selector, nftId, 3, tier, expiresAt));
            booster.boost{value: price}(nftId, tier);
        }
        _assertBoost(3, expiresAt);
    }

    function test_UpgradingIntoAFreeTierKeepsTheSecondsLeftButNoCredit() public {
        _configure(4, 0, 1 hours);
        uint256 t0 = block.timestamp;
        for (uint256 i; i < 10; ++i) _boost(1);
        // Time at a free tier is worth nothing, so keeping all of it gives nothing away.
        assertEq(_boost(4), t0 + 10 days + 1 hours);
        _configure(5, 1 ether, 7 days);
        // ... and it buys nothing at a paid tier.
        assertEq(_boost(5), t0 + 7 days);
    }

    // ---------------------------------------------------------------- fuzz

    struct Ledger {
        uint256[TIERS + 1] price;
        uint64[TIERS + 1] duration;
        /// @dev Product of the durations: `price * scale / duration` is a second's exact value.
        uint256 scale;
        uint256 paid;
        /// @dev Seconds spent boosted, per tier; what is left is read from the booster at the end.
        uint256[TIERS + 1] used;
        /// @dev At most one second of the new tier is lost to rounding per converted upgrade.
        uint256 roundingLoss;
    }

    /// @dev Random list prices and durations, fixed for the run, and 48 steps biased toward the
    /// adversary's moves: runs of cheap extensions, upgrades, downgrade attempts, boosts moments
    /// before expiry and boosts after it. Whatever the order, the tier-seconds held (spent and
    /// left) are worth no more than was paid at list prices, and no less than that minus one
    /// second of rounding per upgrade.
    function testFuzz_NoSequenceOfBoostsIsWorthMoreThanItPaid(
        uint256 seed,
        uint256[TIERS] memory prices,
        uint64[TIERS] memory durations
    ) public {
        Ledger memory l;
        l.scale = 1;
        for (uint8 tier = 1; tier <= TIERS; ++tier) {
            l.price[tier] = bound(prices[tier - 1], 1e12, 1e19);
            l.duration[tier] = uint64(bound(durations[tier - 1], 1 hours, 30 days));
            l.scale *= l.duration[tier];
            _configure(tier, l.price[tier], l.duration[tier]);
        }
        for (uint256 i; i < STEPS; ++i) _step(l, uint256(keccak256(abi.encode(seed, i))));
        (uint256 held, uint256 ceiling) = _settle(l, l.price);
        assertLe(held, ceiling, "tier time worth more than was paid");
        assertGe(held + l.roundingLoss, ceiling, "tier time worth less than was paid, beyond rounding");
    }

    /// @dev As above while the admin reprices tiers between boosts. Each second is then valued at
    /// the lowest price its tier ever listed at: time bought in a sale, extended or upgraded after
    /// it ended, must still be worth no more than it cost.
    function testFuzz_RepricingNeverLetsBoostsBeWorthMoreThanTheyPaid(uint256 seed) public {
        Ledger memory l;
        l.scale = 1;
        uint256[TIERS + 1] memory lowest;
        for (uint8 tier = 1; tier <= TIERS; ++tier) {
            l.price[tier] = tier * 0.01 ether;
            l.duration[tier] = uint64(tier) * 1 days;
            l.scale *= l.duration[tier];
            lowest[tier] = l.price[tier];
            _configure(tier, l.price[tier], l.duration[tier]);
        }
        for (uint256 i; i < STEPS; ++i) {
            uint256 r = uint256(keccak256(abi.encode(seed, i)));
            if (r % 8 == 0) {
                uint8 tier = uint8(1 + ((r >> 8) % TIERS));
                l.price[tier] = bound(r >> 16, 0.001 ether, 0.1 ether);
                if (l.price[tier] < lowest[tier]) lowest[tier] = l.price[tier];
                _configure(tier, l.price[tier], l.duration[tier]);
            } else {
                _step(l, r);
            }
        }
        (uint256 held, uint256 ceiling) = _settle(l, lowest);
        assertLe(held, ceiling, "tier time worth more than was paid");
    }

    /// @dev One move: mostly boosts (same tier, a random tier, a downgrade attempt), else time passes
    /// (a little, to a moment before expiry, or past it).
    function _step(Ledger memory l, uint256 r) private {
        (bool active, uint8 current, uint64 expiresAt) = booster.boostOf(nftId);
        uint256 move = r % 100;
        uint256 arg = r >> 8;
        if (move < 35) {
            _stepBoost(l, active && current != 0 ? current : 1);
        } else if (move < 60) {
            _stepBoost(l, uint8(1 + (arg % TIERS)));
        } else if (move < 75) {
            _stepBoost(l, active && current > 1 ? uint8(1 + (arg % (current - 1))) : 1);
        } else if (move < 85) {
            _wait(l, arg % 1 days);
        } else if (move < 95) {
            if (active) _wait(l, expiresAt - block.timestamp - (arg % 3 == 0 ? 0 : 1));
        } else {
            _wait(l, (active ? expiresAt - block.timestamp : 0) + (arg % 1 days));
        }
    }

    function _stepBoost(Ledger memory l, uint8 tier) private {
        (bool active, uint8 current, uint64 before) = booster.boostOf(nftId);
        if (active && tier < current) {
            bytes memory downgrade =
                abi.encodeWithSelector(IBooster.BoostDowngrade.selector, nftId, current, tier, before);
            vm.expectRevert(downgrade);
            booster.quoteBoost(nftId, tier);
            vm.deal(buyer, l.price[tier]);
            vm.prank(buyer);
            vm.expectRevert(downgrade);
            booster.boost{value: l.price[tier]}(nftId, tier);
            return;
        }
        uint64 quoted = booster.quoteBoost(nftId, tier);
        uint64 expiresAt = _boost(tier);
        assertEq(expiresAt, quoted, "quote");
        l.paid += l.price[tier];
        _assertBoost(tier, expiresAt);
        assertGe(expiresAt, block.timestamp + l.duration[tier], "less than the boost just bought");
        if (active && tier == current) assertEq(expiresAt, before + l.duration[tier], "extension not additive");
        if (active && tier != current) l.roundingLoss += _secondValue(l, l.price, tier);
    }

    function _wait(Ledger memory l, uint256 gap) private {
        (bool active, uint8 tier, uint64 expiresAt) = booster.boostOf(nftId);
        if (active) l.used[tier] += gap < expiresAt - block.timestamp ? gap : expiresAt - block.timestamp;
        vm.warp(block.timestamp + gap);
    }

    /// @return held Value of the tier time spent and left, at `prices`.
    /// @return ceiling What was paid, on the same scale.
    function _settle(Ledger memory l, uint256[TIERS + 1] memory prices)
        private
        view
        returns (uint256 held, uint256 ceiling)
    {
        (bool active, uint8 current, uint64 expiresAt) = booster.boostOf(nftId);
        if (active) l.used[current] += expiresAt - block.timestamp;
        for (uint8 tier = 1; tier <= TIERS; ++tier) held += l.used[tier] * _secondValue(l, prices, tier);
        ceiling = l.paid * l.scale;
    }

    function _secondValue(Ledger memory l, uint256[TIERS + 1] memory prices, uint8 tier)
        private
        pure
        returns (uint256)
    {
        return prices[tier] * (l.scale / l.duration[tier]);
    }

    // ---------------------------------------------------------------- helpers

    function _boost(uint8 tier) private returns (uint64) {
        uint256 price = booster.tierConfig(tier).price;
        vm.deal(buyer, price);
        vm.prank(buyer);
        return booster.boost{value: price}(nftId, tier);
    }

    function _configure(uint8 tier, uint256 price, uint64 duration) private {
        vm.prank(admin);
        booster.configureTier(tier, price, duration, true);
    }

    function _assertBoost(uint8 tier, uint256 expiresAt) private view {
        (bool active, uint8 actualTier, uint64 actualExpiresAt) = booster.boostOf(nftId);
        assertTrue(active, "boost inactive");
        assertEq(actualTier, tier, "tier");
        assertEq(actualExpiresAt, expiresAt, "expiresAt");
    }
}
