// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IVotes} from "@openzeppelin/contracts/governance/utils/IVotes.sol";

/// @title Agent token
/// @notice ERC-20 (18 decimals) with vote checkpoints. Every holder is delegated to itself on
/// first receipt, so voting weight at any past block needs no extra transaction. The token's own
/// pool is never delegated: its balance is liquidity, not a vote.
interface IAgentToken is IERC20, IVotes {
    /// @notice Mints the supply once: `recipients[i]` receives `amounts[i]`.
    /// @param pool The token's pool, excluded from automatic delegation.
    function initialize(
        string calldata name,
        string calldata symbol,
        address pool,
        address[] calldata recipients,
        uint256[] calldata amounts
    ) external;

    /// @notice Voting power that can be cast at `timepoint` (a past timestamp): the sum of every
    /// account's votes, which excludes the pool's balance (never delegated) and anything not
    /// delegated, less the burn address's votes. The base of WorkerVoting's quorum.
    /// Reverts with ERC5805FutureLookup for a timepoint not yet past, as getPastVotes does, and
    /// with CirculatingLookupTooOld before the second preceding the last change (only recent
    /// values are kept: `clock() - 1`, what a proposal reads, always answers).
    function getPastCirculatingSupply(uint256 timepoint) external view returns (uint256);

    /// @notice The pool created with the token.
    function pool() external view returns (address);
}
