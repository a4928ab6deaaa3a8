// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAgentRegistry} from "./IAgentRegistry.sol";

/// @title Action log
/// @notice The on-chain record of every agent action. Queens and scouts act through their
/// registered operator address; a worker acts through its operator and only on its own token.
///
/// Overrides have force. An `override` suspends its target through the registry in the same
/// transaction, and a `resume` lifts that suspension. Who may override whom follows the tiers:
/// the queen overrides scouts and workers, a scout overrides workers only, a worker nobody
/// (`OverrideNotAllowed`). A suspended worker may not record (so the runtime stops trading it);
/// a suspended scout's operator may not record. A suspension ends when a tier at least as high as
/// the one that imposed it records a `resume` (`ResumeNotAllowed` otherwise), or by itself when
/// its cool-off ends: `DEFAULT_COOL_OFF` for `record(..., "override", ...)`, or the cool-off
/// stated to `recordOverride` (1 second to `MAX_COOL_OFF`). A longer stop is a manager's decision
/// (`IAgentRegistry.setWorkerStatus`), which no override or resume can weaken.
interface IActionLog {
    /// @notice One recorded action. `sourceAgentId` is the worker id for workers and the agent
    /// NFT id for queens and scouts. `payload` is UTF-8 JSON by convention. `targetTokenId` is an
    /// agent token's NFT id, or a scout's for an override or resume of that scout.
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
    /// @notice The scout (agent NFT `agentId`) is suspended by the queen and may not act.
    error AgentSuspended(uint256 agentId);
    /// @notice `actionType` does not match `[a-z0-9_]{1,32}`.
    error InvalidActionType(string actionType);
    /// @notice Payload or reason code longer than allowed.
    error FieldTooLong(uint256 length, uint256 maxLength);
    /// @notice A `source` tier may not override (or resume) a `target` tier: only a strictly
    /// higher tier may, and a worker never does.
    error OverrideNotAllowed(IAgentRegistry.Tier source, IAgentRegistry.Tier target);
    /// @notice The suspension was imposed by a higher tier (`suspendedBy`) than the caller's.
    error ResumeNotAllowed(IAgentRegistry.Tier source, IAgentRegistry.Tier suspendedBy);
    /// @notice The target is not suspended by an override (not at all, or by a manager).
    error NothingToResume(uint256 targetTokenId);
    /// @notice The stated cool-off is zero or longer than `maxCoolOff` seconds.
    error InvalidCoolOff(uint256 coolOff, uint256 maxCoolOff);

    /// @notice Records an action on the agent token with NFT id `targetTokenId`. The action
    /// types `override` (suspends the token's worker, or a scout, for `DEFAULT_COOL_OFF`) and
    /// `resume` (lifts such a suspension) follow the override rules above.
    /// @return entryId The new entry's id; ids increase by one from 1.
    function record(
        uint256 targetTokenId,
        string calldata actionType,
        bytes calldata payload,
        string calldata reasonCode
    )
        external
        returns (uint256 entryId);

    /// @notice Records an `override` of `targetTokenId` (an agent token's worker, or a scout)
    /// that suspends it for `coolOff` seconds or until resumed.
    /// @return entryId The new entry's id.
    function recordOverride(
        uint256 targetTokenId,
        uint64 coolOff,
        bytes calldata payload,
        string calldata reasonCode
    )
        external
        returns (uint256 entryId);

    /// @notice Number of entries recorded so far (also the last entry id).
    function entryCount() external view returns (uint256);
}
