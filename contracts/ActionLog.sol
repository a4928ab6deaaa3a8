// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IActionLog} from "./interfaces/IActionLog.sol";
import {IAgentRegistry} from "./interfaces/IAgentRegistry.sol";
import {AgentNames} from "./libraries/AgentNames.sol";

/// @title Action log
/// @notice See {IActionLog}. Entries live in events only: the chain is the log, the indexer the
/// query engine, so recording costs no storage beyond a counter.
contract ActionLog is IActionLog {
    uint256 public constant MAX_PAYLOAD_BYTES = 4096;
    uint256 public constant MAX_REASON_BYTES = 64;
    bytes32 private constant OVERRIDE = keccak256("override");

    IAgentRegistry private immutable _registry;
    uint256 private _entryCount;

    constructor(IAgentRegistry registry_) {
        _registry = registry_;
    }

    /// @inheritdoc IActionLog
    function record(
        uint256 targetTokenId,
        string calldata actionType,
        bytes calldata payload,
        string calldata reasonCode
    )
        external
        returns (uint256 entryId)
    {
        if (!AgentNames.isValidActionType(actionType)) revert InvalidActionType(actionType);
        if (payload.length > MAX_PAYLOAD_BYTES) revert FieldTooLong(payload.length, MAX_PAYLOAD_BYTES);
        if (bytes(reasonCode).length > MAX_REASON_BYTES) {
            revert FieldTooLong(bytes(reasonCode).length, MAX_REASON_BYTES);
        }
        // Reverts for ids that are not agent tokens.
        _registry.tokenOfAgent(targetTokenId);

        (IAgentRegistry.Tier tier, uint256 sourceAgentId) = _registry.agentOfOperator(msg.sender);
        bool isOverride = keccak256(bytes(actionType)) == OVERRIDE;
        if (tier == IAgentRegistry.Tier.None) {
            sourceAgentId = _authorizeWorker(targetTokenId);
            tier = IAgentRegistry.Tier.Worker;
            if (isOverride) revert TierTooLow(IAgentRegistry.Tier.Scout, tier);
        }
        entryId = ++_entryCount;
        emit ActionRecorded(
            entryId, targetTokenId, tier, sourceAgentId, msg.sender, actionType, payload, reasonCode, isOverride
        );
        if (tier == IAgentRegistry.Tier.Worker) _registry.markWorkerActive(sourceAgentId);
    }

    /// @inheritdoc IActionLog
    function entryCount() external view returns (uint256) {
        return _entryCount;
    }

    /// @notice The registry this log authorizes against.
    function registry() external view returns (IAgentRegistry) {
        return _registry;
    }

    function _authorizeWorker(uint256 targetTokenId) private view returns (uint256 workerId) {
        workerId = _registry.workerOfAgent(targetTokenId);
        if (workerId == 0) revert UnauthorizedAgent(msg.sender, targetTokenId);
        (address operator, IAgentRegistry.WorkerStatus status) = _registry.workerAuth(workerId);
        if (operator != msg.sender) revert UnauthorizedAgent(msg.sender, targetTokenId);
        if (status == IAgentRegistry.WorkerStatus.Suspended) revert WorkerSuspended(workerId);
    }
}
