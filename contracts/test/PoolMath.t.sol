// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {LeanTest} from "./utils/LeanTest.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {PoolMath} from "../libraries/PoolMath.sol";

/// @dev External entry points so library reverts surface one call deep, where expectRevert sees them.
contract PoolMathHarness {
    function getAmountOut(uint256 amountIn, uint256 reserveIn, uint256 reserveOut, uint256 feePips)
        external
        pure
        returns (uint256 amountOut, uint256 fee)
    {
        return PoolMath.getAmountOut(amountIn, reserveIn, reserveOut, feePips);
    }

    function sharesFor(uint256 amount, uint256 reserve, uint256 totalShares) external pure returns (uint256) {
        return PoolMath.sharesFor(amount, reserve, totalShares);
    }

    function matchingDeposit(uint256 amount, uint256 reserve, uint256 otherReserve) external pure returns (uint256) {
        return PoolMath.matchingDeposit(amount, reserve, otherReserve);
    }

    function shareOf(uint256 shares, uint256 reserve, uint256 totalShares) external pure returns (uint256) {
        return PoolMath.shareOf(shares, reserve, totalShares);
    }

    function shareOfRoundingUp(uint256 shares, uint256 reserve, uint256 totalShares) external pure returns (uint256) {
        return PoolMath.shareOfRoundingUp(shares, reserve, totalShares);
    }
}

contract PoolMathTest is LeanTest {
    /// @dev Far above any reserve the spawner allows (MAX_SUPPLY = 1e30) yet small enough that the
    /// products checked below (at most 1e60) cannot overflow.
    uint256 private constant MAX_AMOUNT = 1e30;
    uint256 private constant MAX_FEE = PoolMath.FEE_DENOMINATOR - 1;

    PoolMathHarness private math;

    function setUp() public {
        math = new PoolMathHarness();
    }

    // ------------------------------------------------------------------ swaps

    function testFuzz_SwapNeverDecreasesK(uint256 amountIn, uint256 reserveIn, uint256 reserveOut, uint256 feePips)
        public
        view
    {
        (amountIn, reserveIn, reserveOut, feePips) = _boundSwap(amountIn, reserveIn, reserveOut, feePips);
        (uint256 amountOut,) = math.getAmountOut(amountIn, reserveIn, reserveOut, feePips);
        assertGe((reserveIn + amountIn) * (reserveOut - amountOut), reserveIn * reserveOut, "k decreased");
    }

    function testFuzz_SwapOutputStrictlyBelowOutReserve(
        uint256 amountIn,
        uint256 reserveIn,
        uint256 reserveOut,
        uint256 feePips
    ) public view {
        (amountIn, reserveIn, reserveOut, feePips) = _boundSwap(amountIn, reserveIn, reserveOut, feePips);
        (uint256 amountOut,) = math.getAmountOut(amountIn, reserveIn, reserveOut, feePips);
        assertLt(amountOut, reserveOut, "swap drains the out reserve");
    }

    /// @dev Whatever the input, the pool never gives more than it could get without a fee and with
    /// an infinitely deep reserve: out <= in * rOut / rIn.
    function testFuzz_SwapOutputBelowSpotPrice(uint256 amountIn, uint256 reserveIn, uint256 reserveOut, uint256 feePips)
        public
        view
    {
        (amountIn, reserveIn, reserveOut, feePips) = _boundSwap(amountIn, reserveIn, reserveOut, feePips);
        (uint256 amountOut,) = math.getAmountOut(amountIn, reserveIn, reserveOut, feePips);
        assertLe(amountOut * reserveIn, amountIn * reserveOut, "output above spot price");
    }

    function testFuzz_FeeIsCeiledAndNeverExceedsInput(
        uint256 amountIn,
        uint256 reserveIn,
        uint256 reserveOut,
        uint256 feePips
    ) public view {
        (amountIn, reserveIn, reserveOut, feePips) = _boundSwap(amountIn, reserveIn, reserveOut, feePips);
        (, uint256 fee) = math.getAmountOut(amountIn, reserveIn, reserveOut, feePips);
        assertLe(fee, amountIn, "fee above input");
        // Ceil division written out independently of Math.mulDiv.
        uint256 expected = (amountIn * feePips + PoolMath.FEE_DENOMINATOR - 1) / PoolMath.FEE_DENOMINATOR;
        assertEq(fee, expected, "fee is not ceil(in * fee / 1e6)");
    }

    /// @dev A non-zero fee tier always charges something, so dust swaps cannot dodge the fee.
    function testFuzz_NonZeroFeeChargesAtLeastOne(uint256 amountIn, uint256 feePips) public view {
        amountIn = bound(amountIn, 1, MAX_AMOUNT);
        feePips = bound(feePips, 1, MAX_FEE);
        (, uint256 fee) = math.getAmountOut(amountIn, 1e18, 1e18, feePips);
        assertGe(fee, 1, "fee rounded to zero");
    }

    function testFuzz_OutputMonotonicInAmountIn(
        uint256 smallIn,
        uint256 largeIn,
        uint256 reserveIn,
        uint256 reserveOut,
        uint256 feePips
    ) public view {
        (largeIn, reserveIn, reserveOut, feePips) = _boundSwap(largeIn, reserveIn, reserveOut, feePips);
        smallIn = bound(smallIn, 1, largeIn);
        (uint256 smallOut,) = math.getAmountOut(smallIn, reserveIn, reserveOut, feePips);
        (uint256 largeOut,) = math.getAmountOut(largeIn, reserveIn, reserveOut, feePips);
        assertLe(smallOut, largeOut, "more input, less output");
    }

    /// @dev Neighbouring inputs exercise the fee's rounding step, where a naive
    /// `in - ceil(in * fee)` could dip.
    function testFuzz_OutputMonotonicForAdjacentInputs(
        uint256 amountIn,
        uint256 reserveIn,
        uint256 reserveOut,
        uint256 feePips
    ) public view {
        (amountIn, reserveIn, reserveOut, feePips) = _boundSwap(amountIn, reserveIn, reserveOut, feePips);
        amountIn = bound(amountIn, 1, MAX_AMOUNT - 1);
        (uint256 out,) = math.getAmountOut(amountIn, reserveIn, reserveOut, feePips);
        (uint256 nextOut,) = math.getAmountOut(amountIn + 1, reserveIn, reserveOut, feePips);
        assertLe(out, nextOut, "one more wei in, less out");
    }

    function test_GetAmountOutKnownValue() public view {
        // 0.30% of 1000 is exactly 3; 997 * 1e6 / (1e6 + 997) = 996.006... floored.
        (uint256 amountOut, uint256 fee) = math.getAmountOut(1000, 1e6, 1e6, 3000);
        assertEq(fee, 3);
        assertEq(amountOut, 996);
    }

    function test_FullFeeOfDustLeavesNothingToSwap() public view {
        // ceil(1 * 3000 / 1e6) = 1: the whole wei is fee and nothing comes out.
        (uint256 amountOut, uint256 fee) = math.getAmountOut(1, 1e18, 1e18, 3000);
        assertEq(fee, 1);
        assertEq(amountOut, 0);
    }

    function test_RevertWhen_AmountInIsZero() public {
        vm.expectRevert(PoolMath.ZeroAmount.selector);
        math.getAmountOut(0, 1e18, 1e18, 3000);
    }

    function testFuzz_RevertWhen_AReserveIsEmpty(uint256 reserve, bool emptyIn) public {
        reserve = bound(reserve, 0, MAX_AMOUNT);
        (uint256 reserveIn, uint256 reserveOut) = emptyIn ? (uint256(0), reserve) : (reserve, uint256(0));
        vm.expectRevert(abi.encodeWithSelector(PoolMath.EmptyReserves.selector, reserveIn, reserveOut));
        math.getAmountOut(1e18, reserveIn, reserveOut, 3000);
    }

    function testFuzz_RevertWhen_FeeIsOneHundredPercentOrMore(uint256 feePips) public {
        feePips = bound(feePips, PoolMath.FEE_DENOMINATOR, type(uint256).max);
        vm.expectRevert(abi.encodeWithSelector(PoolMath.InvalidFee.selector, feePips));
        math.getAmountOut(1e18, 1e18, 1e18, feePips);
    }

    function test_ZeroAmountIsCheckedBeforeReservesAndFee() public {
        vm.expectRevert(PoolMath.ZeroAmount.selector);
        math.getAmountOut(0, 0, 0, PoolMath.FEE_DENOMINATOR);
    }

    // -------------------------------------------------------------- liquidity

    /// @dev Replays AgentPool.addLiquidity then removeLiquidity of the minted shares, with the
    /// pool's own rounding: the depositor never gets back more than it put in, on either side.
    function testFuzz_AddThenRemoveNeverReturnsMore(
        uint256 reserveToken,
        uint256 reservePair,
        uint256 totalShares,
        uint256 amountToken
    ) public view {
        reserveToken = bound(reserveToken, 1, MAX_AMOUNT);
        reservePair = bound(reservePair, 0, MAX_AMOUNT);
        totalShares = bound(totalShares, 1, MAX_AMOUNT);
        // The pool refuses deposits minting no share; start at the smallest one that mints one.
        uint256 minAmount = Math.ceilDiv(reserveToken, totalShares);
        amountToken = bound(amountToken, minAmount, Math.max(minAmount, MAX_AMOUNT));

        uint256 shares = math.sharesFor(amountToken, reserveToken, totalShares);
        uint256 amountPair = math.matchingDeposit(amountToken, reserveToken, reservePair);
        assertGt(shares, 0, "deposit minted no share");

        uint256 tokenBack = math.shareOf(shares, reserveToken + amountToken, totalShares + shares);
        uint256 pairBack = math.shareOf(shares, reservePair + amountPair, totalShares + shares);
        assertLe(tokenBack, amountToken, "token side returned more than deposited");
        assertLe(pairBack, amountPair, "pair side returned more than deposited");
    }

    /// @dev Existing shares never lose value to a deposit: the reserves behind each share do not
    /// shrink on either side.
    function testFuzz_DepositNeverDilutesExistingShares(
        uint256 reserveToken,
        uint256 reservePair,
        uint256 totalShares,
        uint256 amountToken
    ) public view {
        reserveToken = bound(reserveToken, 1, MAX_AMOUNT);
        reservePair = bound(reservePair, 0, MAX_AMOUNT);
        totalShares = bound(totalShares, 1, MAX_AMOUNT);
        amountToken = bound(amountToken, 1, MAX_AMOUNT);

        uint256 shares = math.sharesFor(amountToken, reserveToken, totalShares);
        uint256 amountPair = math.matchingDeposit(amountToken, reserveToken, reservePair);
        uint256 newShares = totalShares + shares;
        // (R + a) / (S + s) >= R / S, i.e. R * (S + s) / S <= R + a exactly: rounding the
        // quotient up keeps the comparison exact while the 512-bit product cannot overflow.
        uint256 tokenNeeded = Math.mulDiv(reserveToken, newShares, totalShares, Math.Rounding.Ceil);
        uint256 pairNeeded = Math.mulDiv(reservePair, newShares, totalShares, Math.Rounding.Ceil);
        assertLe(tokenNeeded, reserveToken + amountToken, "token per share fell");
        assertLe(pairNeeded, reservePair + amountPair, "pair per share fell");
    }

    function testFuzz_ShareOfAllIsEverything(uint256 reserve, uint256 totalShares) public view {
        reserve = bound(reserve, 0, MAX_AMOUNT);
        totalShares = bound(totalShares, 1, MAX_AMOUNT);
        assertEq(math.shareOf(totalShares, reserve, totalShares), reserve);
    }

    function testFuzz_MatchingDepositRoundsUp(uint256 amount, uint256 reserve, uint256 otherReserve) public view {
        amount = bound(amount, 1, MAX_AMOUNT);
        reserve = bound(reserve, 1, MAX_AMOUNT);
        otherReserve = bound(otherReserve, 0, MAX_AMOUNT);
        uint256 deposit = math.matchingDeposit(amount, reserve, otherReserve);
        // deposit / amount >= otherReserve / reserve, and by less than one unit.
        assertGe(deposit * reserve, amount * otherReserve, "depositor underpays");
        assertLt(deposit * reserve, amount * otherReserve + reserve, "depositor overpays by a unit or more");
    }

    function testFuzz_ShareOfRoundingUpIsCeilOfShareOf(uint256 shares, uint256 reserve, uint256 totalShares)
        public
        view
    {
        totalShares = bound(totalShares, 1, MAX_AMOUNT);
        shares = bound(shares, 0, totalShares);
        reserve = bound(reserve, 0, MAX_AMOUNT);
        uint256 up = math.shareOfRoundingUp(shares, reserve, totalShares);
        uint256 down = math.shareOf(shares, reserve, totalShares);
        // up = ceil(shares * reserve / totalShares): one above the floor exactly when inexact.
        assertEq(up, (shares * reserve) % totalShares == 0 ? down : down + 1, "not the ceiling");
        assertLe(up, reserve, "a part above the whole");
    }

    /// @dev What AgentPool.removeLiquidity leaves: real reserves shrink by at most the shares'
    /// part (floored payouts), the virtual one by at least it (rounded up). Then the pool's
    /// solvency measure R * P / V (what lets the real reserve buy back every outside token)
    /// shrinks no faster than the shares: R' * P' * V * S >= R * P * V' * S'.
    function testFuzz_WithdrawalKeepsSolvencyPerShare(
        uint256 reserveToken,
        uint256 reservePair,
        uint256 virtualPair,
        uint256 totalShares,
        uint256 shares
    ) public view {
        reserveToken = bound(reserveToken, 1, 1e24);
        reservePair = bound(reservePair, 0, 1e24);
        virtualPair = bound(virtualPair, 1, 1e24);
        totalShares = bound(totalShares, 2, 1e24);
        shares = bound(shares, 1, totalShares - 1);
        uint256 left = totalShares - shares;
        uint256 r = reserveToken - math.shareOf(shares, reserveToken, totalShares);
        uint256 p = reservePair - math.shareOf(shares, reservePair, totalShares);
        uint256 v = virtualPair - math.shareOfRoundingUp(shares, virtualPair, totalShares);
        if (v == 0) return; // only when the whole virtual reserve went: nothing left to sell into
        // Compare (r * p / v) * totalShares >= (R * P / V) * left without overflow, exactly
        // enough: both sides rounded the way that can only weaken the check.
        uint256 after_ = Math.mulDiv(r * p, totalShares, v);
        uint256 before = Math.mulDiv(reserveToken * reservePair, left, virtualPair, Math.Rounding.Ceil);
        assertGe(after_ + 1, before, "solvency per share fell");
    }

    function test_RevertWhen_SharesForEmptyReserve() public {
        vm.expectRevert(abi.encodeWithSelector(PoolMath.EmptyReserves.selector, 0, 7));
        math.sharesFor(1, 0, 7);
    }

    function test_RevertWhen_MatchingDepositAgainstEmptyReserve() public {
        vm.expectRevert(abi.encodeWithSelector(PoolMath.EmptyReserves.selector, 0, 5));
        math.matchingDeposit(1, 0, 5);
    }

    function test_RevertWhen_ShareOfNoShares() public {
        vm.expectRevert(abi.encodeWithSelector(PoolMath.EmptyReserves.selector, 9, 0));
        math.shareOf(1, 9, 0);
    }

    // ---------------------------------------------------------------- helpers

    function _boundSwap(uint256 amountIn, uint256 reserveIn, uint256 reserveOut, uint256 feePips)
        private
        pure
        returns (uint256, uint256, uint256, uint256)
    {
        return (
            bound(amountIn, 1, MAX_AMOUNT),
            bound(reserveIn, 1, MAX_AMOUNT),
            bound(reserveOut, 1, MAX_AMOUNT),
            bound(feePips, 0, MAX_FEE)
        );
    }
}
