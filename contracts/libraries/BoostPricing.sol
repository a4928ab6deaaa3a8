// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title Boost pricing
/// @notice Values boost time at list rates and converts it between tiers, rounding in the
/// booster's favour. A tier sells `duration` seconds for `price`, so one of its seconds is worth
/// `price / duration`; rates are compared and converted by cross-multiplying, never divided early.
/// @dev Prices fit in 120 bits and durations and seconds in 64, so every product below stays under
/// 2^248 and needs no 512-bit arithmetic.
library BoostPricing {
    /// @notice `duration` seconds for `price`.
    struct Rate {
        uint120 price;
        uint64 duration;
    }

    /// @notice A rate sells no time (zero duration): one of its seconds has no defined value.
    error ZeroDuration(uint120 price);

    /// @notice Seconds at `to` worth `seconds_` at `from`: seconds * from.price * to.duration /
    /// (from.duration * to.price), rounded down, so converted time is never worth more than the time
    /// it came from and is worth less by under one second at `to`.
    /// @dev Time at a free rate is worth nothing whatever its length, so converting into one keeps
    /// the seconds (nothing is given away); converting out of one yields nothing.
    function convert(uint64 seconds_, Rate memory from, Rate memory to) internal pure returns (uint256) {
        if (from.duration == 0) revert ZeroDuration(from.price);
        if (to.duration == 0) revert ZeroDuration(to.price);
        if (to.price == 0) return seconds_;
        // Same rate, same time: the common case (a tier extended at the price it was bought at).
        if (from.price == to.price && from.duration == to.duration) return seconds_;
        return (uint256(seconds_) * from.price * to.duration) / (uint256(from.duration) * to.price);
    }

    /// @notice The cheaper per second of `a` and `b` (`a` on a tie).
    function cheaper(Rate memory a, Rate memory b) internal pure returns (Rate memory) {
        if (a.duration == 0) revert ZeroDuration(a.price);
        if (b.duration == 0) revert ZeroDuration(b.price);
        return uint256(b.price) * a.duration < uint256(a.price) * b.duration ? b : a;
    }
}
