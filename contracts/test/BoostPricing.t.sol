// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {LeanTest} from "./utils/LeanTest.sol";
import {BoostPricing} from "../libraries/BoostPricing.sol";

/// @dev External entry points so library reverts surface one call deep, where expectRevert sees them.
contract BoostPricingHarness {
    function convert(uint64 seconds_, BoostPricing.Rate memory from, BoostPricing.Rate memory to)
        external
        pure
        returns (uint256)
    {
        return BoostPricing.convert(seconds_, from, to);
    }

    function cheaper(BoostPricing.Rate memory a, BoostPricing.Rate memory b)
        external
        pure
        returns (BoostPricing.Rate memory)
    {
        return BoostPricing.cheaper(a, b);
    }
}

/// @notice Values are compared cross-multiplied: `s` seconds at (p, d) are worth s * p / d, so
/// s1 at r1 is worth no more than s2 at r2 iff s1 * p1 * d2 <= s2 * p2 * d1 (all below 2^256 for
/// the library's 120-bit prices and 64-bit durations and seconds).
contract BoostPricingTest is LeanTest {
    BoostPricingHarness private pricing;

    function setUp() public {
        pricing = new BoostPricingHarness();
    }

    function testFuzz_ConvertedTimeIsNeverWorthMore(uint64 seconds_, uint120 p1, uint64 d1, uint120 p2, uint64 d2)
        public
        view
    {
        (BoostPricing.Rate memory from, BoostPricing.Rate memory to) = _paidRates(p1, d1, p2, d2);
        uint256 out = pricing.convert(seconds_, from, to);
        assertLe(_value(out, to, from), _value(seconds_, from, to), "conversion created value");
    }

    function testFuzz_ConvertedTimeLosesLessThanOneSecondAtTheNewRate(
        uint64 seconds_,
        uint120 p1,
        uint64 d1,
        uint120 p2,
        uint64 d2
    ) public view {
        (BoostPricing.Rate memory from, BoostPricing.Rate memory to) = _paidRates(p1, d1, p2, d2);
        uint256 out = pricing.convert(seconds_, from, to);
        assertGt(_value(out + 1, to, from), _value(seconds_, from, to), "rounded down by a second or more");
    }

    function testFuzz_ARoundTripNeverGainsTime(uint64 seconds_, uint120 p1, uint64 d1, uint120 p2, uint64 d2)
        public
        view
    {
        (BoostPricing.Rate memory a, BoostPricing.Rate memory b) = _paidRates(p1, d1, p2, d2);
        // Keep the first leg within 64 bits, as the booster's expiry does.
        seconds_ = uint64(bound(seconds_, 0, 365 days));
        uint256 there = pricing.convert(seconds_, a, b);
        vm.assume(there <= type(uint64).max);
        assertLe(pricing.convert(uint64(there), b, a), seconds_, "round trip gained time");
    }

    function testFuzz_TheSameRateKeepsEverySecond(uint64 seconds_, uint120 price, uint64 duration, uint8 k) public view {
        price = uint120(bound(price, 1, type(uint120).max / 256));
        duration = uint64(bound(duration, 1, type(uint64).max / 256));
        k = uint8(bound(k, 1, 255));
        BoostPricing.Rate memory rate = BoostPricing.Rate(price, duration);
        BoostPricing.Rate memory scaled = BoostPricing.Rate(price * k, duration * k);
        assertEq(pricing.convert(seconds_, rate, rate), seconds_);
        assertEq(pricing.convert(seconds_, rate, scaled), seconds_);
        assertEq(pricing.convert(seconds_, scaled, rate), seconds_);
    }

    function testFuzz_IntoAFreeRateKeepsTheSecondsOutOfOneGivesNone(
        uint64 seconds_,
        uint120 price,
        uint64 d1,
        uint64 d2
    ) public view {
        d1 = uint64(bound(d1, 1, type(uint64).max));
        d2 = uint64(bound(d2, 1, type(uint64).max));
        price = uint120(bound(price, 1, type(uint120).max));
        BoostPricing.Rate memory free = BoostPricing.Rate(0, d1);
        assertEq(pricing.convert(seconds_, BoostPricing.Rate(price, d2), free), seconds_);
        assertEq(pricing.convert(seconds_, free, BoostPricing.Rate(0, d2)), seconds_);
        assertEq(pricing.convert(seconds_, free, BoostPricing.Rate(price, d2)), 0);
    }

    function test_ConvertKnownValues() public view {
        // Sixty days at 0.01 a day are 0.6: 42 days at 0.1 a week.
        assertEq(pricing.convert(60 days, _rate(0.01 ether, 1 days), _rate(0.1 ether, 7 days)), 42 days);
        // One second at 0.01 a day is 0.7 of a second at 0.1 a week: nothing.
        assertEq(pricing.convert(1, _rate(0.01 ether, 1 days), _rate(0.1 ether, 7 days)), 0);
        // Five days at 0.05 per 3 days buy 35 / 6 days at 0.1 a week.
        assertEq(pricing.convert(5 days, _rate(0.05 ether, 3 days), _rate(0.1 ether, 7 days)), 504_000);
    }

    function testFuzz_CheaperPicksTheLowerPricePerSecond(uint120 p1, uint64 d1, uint120 p2, uint64 d2) public view {
        (BoostPricing.Rate memory a, BoostPricing.Rate memory b) = _paidRates(p1, d1, p2, d2);
        BoostPricing.Rate memory low = pricing.cheaper(a, b);
        BoostPricing.Rate memory other = low.price == a.price && low.duration == a.duration ? b : a;
        // low.price / low.duration <= other.price / other.duration
        assertLe(uint256(low.price) * other.duration, uint256(other.price) * low.duration, "picked the dearer rate");
        assertTrue(
            (low.price == a.price && low.duration == a.duration) || (low.price == b.price && low.duration == b.duration),
            "invented a rate"
        );
    }

    function test_CheaperKeepsTheFirstOnATie() public view {
        BoostPricing.Rate memory low = pricing.cheaper(_rate(1, 2), _rate(2, 4));
        assertEq(low.price, 1);
        assertEq(low.duration, 2);
    }

    function testFuzz_RevertWhen_ARateSellsNoTime(uint64 seconds_, uint120 price, bool fromSide) public {
        BoostPricing.Rate memory none = _rate(price, 0);
        BoostPricing.Rate memory some = _rate(1, 1);
        vm.expectRevert(abi.encodeWithSelector(BoostPricing.ZeroDuration.selector, price));
        if (fromSide) pricing.convert(seconds_, none, some);
        else pricing.convert(seconds_, some, none);
        vm.expectRevert(abi.encodeWithSelector(BoostPricing.ZeroDuration.selector, price));
        if (fromSide) pricing.cheaper(none, some);
        else pricing.cheaper(some, none);
    }

    /// @dev Two paid rates (price >= 1, duration >= 1).
    function _paidRates(uint120 p1, uint64 d1, uint120 p2, uint64 d2)
        private
        pure
        returns (BoostPricing.Rate memory, BoostPricing.Rate memory)
    {
        return (
            _rate(uint120(bound(p1, 1, type(uint120).max)), uint64(bound(d1, 1, type(uint64).max))),
            _rate(uint120(bound(p2, 1, type(uint120).max)), uint64(bound(d2, 1, type(uint64).max)))
        );
    }

    /// @dev `seconds_` at `rate`, scaled by `other.duration * rate.duration` so values at `rate`
    /// and `other` compare exactly: seconds * rate.price * other.duration.
    function _value(uint256 seconds_, BoostPricing.Rate memory rate, BoostPricing.Rate memory other)
        private
        pure
        returns (uint256)
    {
        return seconds_ * rate.price * other.duration;
    }

    function _rate(uint120 price, uint64 duration) private pure returns (BoostPricing.Rate memory) {
        return BoostPricing.Rate(price, duration);
    }
}
