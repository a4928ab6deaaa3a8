// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAgentRegistry} from "./IAgentRegistry.sol";

/// @title Action log
/// @notice The on-chain record of every agent action. Queens and scouts act through their
/// registered operator address; a worker acts through its operator and only on its own token.
/// An `override` may only come from a tier above worker and is flagged as such.
interface IActionLog {
    /// @notice One recorded action. `sourceAgentId` is the worker id for workers and the agent
    /// NFT id for queens and scouts. `payload` is UTF-8 JSON by convention.
    event ActionRecorded(
        uint256 indexed entryId,
        uint256 indexed targetTokenId,
        IAgentRegistry.Tier indexed sourceTier,
        uint256 sourceAgentId,
        address operator,
        string actionType,
        bytes payload,
        string reasonCode,
        bool isOverride
    );

    /// @notice The caller acts for no queen, scout, or for no worker of the target token.
    error UnauthorizedAgent(address caller, uint256 targetTokenId);
    /// @notice The worker is suspended and may not act.
    error WorkerSuspended(uint256 workerId);
    /// @notice `actionType` does not match `[a-z0-9_]{1,32}`.
    error InvalidActionType(string actionType);
    /// @notice The action needs a higher tier than the caller's.
    error TierTooLow(IAgentRegistry.Tier required, IAgentRegistry.Tier actual);
    /// @notice Payload or reason code longer than allowed.
    error FieldTooLong(uint256 length, uint256 maxLength);

    /// @notice Records an action on the agent token with NFT id `targetTokenId`.
    /// @return entryId The new entry's id; ids increase by one from 1.
    function record(
        uint256 targetTokenId,
        string calldata actionType,
        bytes calldata payload,
        string calldata reasonCode
    )
        external
        returns (uint256 entryId);

    /// @notice Number of entries recorded so far (also the last entry id).
    function entryCount() external view returns (uint256);
}
