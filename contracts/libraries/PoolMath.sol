// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";

/// @title Constant-product pool math
/// @notice Exact-in swap quotes and proportional liquidity, all rounding in the pool's favour.
/// @dev Fees are in pips (hundredths of a basis point): 3000 = 0.30%.
library PoolMath {
    uint256 internal constant FEE_DENOMINATOR = 1_000_000;

    /// @notice The input amount is zero.
    error ZeroAmount();
    /// @notice A reserve the operation needs is empty.
    error EmptyReserves(uint256 reserveIn, uint256 reserveOut);
    /// @notice The fee is 100% or more.
    error InvalidFee(uint256 feePips);

    /// @notice Output of an exact-in swap and the fee kept by the pool (in the input asset).
    /// @dev out = in' * rOut / (rIn + in') with in' = in - fee, floored, so that
    /// (rIn + in) * (rOut - out) >= rIn * rOut: k never decreases.
    function getAmountOut(uint256 amountIn, uint256 reserveIn, uint256 reserveOut, uint256 feePips)
        internal
        pure
        returns (uint256 amountOut, uint256 fee)
    {
        if (amountIn == 0) revert ZeroAmount();
        if (reserveIn == 0 || reserveOut == 0) revert EmptyReserves(reserveIn, reserveOut);
        if (feePips >= FEE_DENOMINATOR) revert InvalidFee(feePips);
        fee = Math.mulDiv(amountIn, feePips, FEE_DENOMINATOR, Math.Rounding.Ceil);
        uint256 amountInAfterFee = amountIn - fee;
        amountOut = Math.mulDiv(amountInAfterFee, reserveOut, reserveIn + amountInAfterFee);
    }

    /// @notice Shares minted for depositing `amount` against `reserve` when `totalShares` exist (floored).
    function sharesFor(uint256 amount, uint256 reserve, uint256 totalShares) internal pure returns (uint256) {
        if (reserve == 0) revert EmptyReserves(reserve, totalShares);
        return Math.mulDiv(amount, totalShares, reserve);
    }

    /// @notice The other side a deposit of `amount` against `reserve` must bring to keep
    /// `otherReserve / reserve` (rounded up, so depositors never underpay).
    function matchingDeposit(uint256 amount, uint256 reserve, uint256 otherReserve) internal pure returns (uint256) {
        if (reserve == 0) revert EmptyReserves(reserve, otherReserve);
        return Math.mulDiv(amount, otherReserve, reserve, Math.Rounding.Ceil);
    }

    /// @notice The part of `reserve` that `shares` of `totalShares` own (floored, so withdrawals never overpay).
    function shareOf(uint256 shares, uint256 reserve, uint256 totalShares) internal pure returns (uint256) {
        if (totalShares == 0) revert EmptyReserves(reserve, totalShares);
        return Math.mulDiv(shares, reserve, totalShares);
    }

    /// @notice The part of `reserve` that `shares` of `totalShares` own, rounded up. For the
    /// virtual reserve a withdrawal takes away: rounding up keeps the real pair reserve able to
    /// buy back every token outside the pool (rounding down would leave a price a dust unit too high).
    function shareOfRoundingUp(uint256 shares, uint256 reserve, uint256 totalShares) internal pure returns (uint256) {
        if (totalShares == 0) revert EmptyReserves(reserve, totalShares);
        return Math.mulDiv(shares, reserve, totalShares, Math.Rounding.Ceil);
    }
}
