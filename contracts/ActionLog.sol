// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IActionLog} from "./interfaces/IActionLog.sol";
import {IAgentRegistry} from "./interfaces/IAgentRegistry.sol";
import {AgentNames} from "./libraries/AgentNames.sol";

/// @title Action log
/// @notice See {IActionLog}. Entries live in events only: the chain is the log, the indexer the
/// query engine, so recording costs no storage beyond a counter. Suspensions live in the
/// registry, which this log drives with its override role; the tier rules are checked here.
contract ActionLog is IActionLog {
    uint256 public constant MAX_PAYLOAD_BYTES = 4096;
    uint256 public constant MAX_REASON_BYTES = 64;
    /// @notice Cool-off of an `override` recorded through `record`.
    uint64 public constant DEFAULT_COOL_OFF = 1 hours;
    /// @notice Longest cool-off an override may state: longer stops are a manager's decision.
    uint64 public constant MAX_COOL_OFF = 1 days;
    bytes32 private constant OVERRIDE = keccak256("override");
    bytes32 private constant RESUME = keccak256("resume");

    IAgentRegistry private immutable _registry;
    uint256 private _entryCount;

    /// @dev What an override or resume acts on: a token's worker or a scout.
    struct Target {
        IAgentRegistry.Tier tier;
        uint256 workerId;
    }

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
        _checkFields(payload, reasonCode);
        bytes32 kind = keccak256(bytes(actionType));
        if (kind == OVERRIDE) return _override(targetTokenId, DEFAULT_COOL_OFF, payload, reasonCode);
        if (kind == RESUME) return _resume(targetTokenId, payload, reasonCode);

        // Reverts for ids that are not agent tokens.
        _registry.tokenOfAgent(targetTokenId);
        (IAgentRegistry.Tier tier, uint256 sourceAgentId) = _actor();
        if (tier == IAgentRegistry.Tier.None) {
            sourceAgentId = _authorizeWorker(targetTokenId);
            tier = IAgentRegistry.Tier.Worker;
        }
        entryId = _emit(targetTokenId, tier, sourceAgentId, actionType, payload, reasonCode, false);
        if (tier == IAgentRegistry.Tier.Worker) _registry.markWorkerActive(sourceAgentId);
    }

    /// @inheritdoc IActionLog
    function recordOverride(
        uint256 targetTokenId,
        uint64 coolOff,
        bytes calldata payload,
        string calldata reasonCode
    )
        external
        returns (uint256 entryId)
    {
        _checkFields(payload, reasonCode);
        if (coolOff == 0 || coolOff > MAX_COOL_OFF) revert InvalidCoolOff(coolOff, MAX_COOL_OFF);
        return _override(targetTokenId, coolOff, payload, reasonCode);
    }

    /// @inheritdoc IActionLog
    function entryCount() external view returns (uint256) {
        return _entryCount;
    }

    /// @notice The registry this log authorizes against.
    function registry() external view returns (IAgentRegistry) {
        return _registry;
    }

    function _override(uint256 targetTokenId, uint64 coolOff, bytes calldata payload, string calldata reasonCode)
        private
        returns (uint256 entryId)
    {
        (IAgentRegistry.Tier tier, uint256 sourceAgentId, Target memory target) = _overrider(targetTokenId);
        uint64 until = uint64(block.timestamp) + coolOff;
        entryId = _emit(targetTokenId, tier, sourceAgentId, "override", payload, reasonCode, true);
        if (target.tier == IAgentRegistry.Tier.Worker) {
            _registry.suspendWorker(target.workerId, tier, sourceAgentId, until);
        } else {
            _registry.suspendAgent(targetTokenId, tier, sourceAgentId, until);
        }
    }

    function _resume(uint256 targetTokenId, bytes calldata payload, string calldata reasonCode)
        private
        returns (uint256 entryId)
    {
        (IAgentRegistry.Tier tier, uint256 sourceAgentId, Target memory target) = _overrider(targetTokenId);
        bool isWorker = target.tier == IAgentRegistry.Tier.Worker;
        IAgentRegistry.Tier suspendedBy = isWorker
            ? _registry.workerSuspension(target.workerId).byTier
            : _registry.agentSuspension(targetTokenId).byTier;
        if (suspendedBy == IAgentRegistry.Tier.None) revert NothingToResume(targetTokenId);
        if (tier < suspendedBy) revert ResumeNotAllowed(tier, suspendedBy);
        entryId = _emit(targetTokenId, tier, sourceAgentId, "resume", payload, reasonCode, false);
        if (isWorker) _registry.resumeWorker(target.workerId, tier, sourceAgentId);
        else _registry.resumeAgent(targetTokenId, tier, sourceAgentId);
    }

    /// @dev The caller's tier and agent id for an override or resume of `targetTokenId`, and the
    /// target; reverts unless the caller's tier is strictly above the target's.
    function _overrider(uint256 targetTokenId)
        private
        view
        returns (IAgentRegistry.Tier tier, uint256 sourceAgentId, Target memory target)
    {
        IAgentRegistry.AgentKind kind = _registry.agentKind(targetTokenId);
        if (kind == IAgentRegistry.AgentKind.Token) {
            target = Target(IAgentRegistry.Tier.Worker, _registry.workerOfAgent(targetTokenId));
        } else if (kind == IAgentRegistry.AgentKind.Scout) {
            target.tier = IAgentRegistry.Tier.Scout;
        } else {
            target.tier = IAgentRegistry.Tier.Queen;
        }
        (tier, sourceAgentId) = _actor();
        if (tier == IAgentRegistry.Tier.None) {
            // A worker's operator (on its own token) learns the rule; anyone else is a stranger.
            if (kind == IAgentRegistry.AgentKind.Token) _authorizeWorker(targetTokenId);
            else revert UnauthorizedAgent(msg.sender, targetTokenId);
            tier = IAgentRegistry.Tier.Worker;
        }
        if (tier <= target.tier) revert OverrideNotAllowed(tier, target.tier);
    }

    /// @dev The queen or scout the caller operates (Tier.None if none); a suspended scout may not act.
    function _actor() private view returns (IAgentRegistry.Tier tier, uint256 agentId) {
        (tier, agentId) = _registry.agentOfOperator(msg.sender);
        if (tier == IAgentRegistry.Tier.Scout && _registry.agentSuspension(agentId).until > block.timestamp) {
            revert AgentSuspended(agentId);
        }
    }

    function _authorizeWorker(uint256 targetTokenId) private view returns (uint256 workerId) {
        workerId = _registry.workerOfAgent(targetTokenId);
        if (workerId == 0) revert UnauthorizedAgent(msg.sender, targetTokenId);
        (address operator, IAgentRegistry.WorkerStatus status) = _registry.workerAuth(workerId);
        if (operator != msg.sender) revert UnauthorizedAgent(msg.sender, targetTokenId);
        if (status == IAgentRegistry.WorkerStatus.Suspended) revert WorkerSuspended(workerId);
    }

    function _checkFields(bytes calldata payload, string calldata reasonCode) private pure {
        if (payload.length > MAX_PAYLOAD_BYTES) revert FieldTooLong(payload.length, MAX_PAYLOAD_BYTES);
        if (bytes(reasonCode).length > MAX_REASON_BYTES) {
            revert FieldTooLong(bytes(reasonCode).length, MAX_REASON_BYTES);
        }
    }

    function _emit(
        uint256 targetTokenId,
        IAgentRegistry.Tier tier,
        uint256 sourceAgentId,
        string memory actionType,
        bytes calldata payload,
        string calldata reasonCode,
        bool isOverride
    )
        private
        returns (uint256 entryId)
    {
        entryId = ++_entryCount;
        emit ActionRecorded(
            entryId, targetTokenId, tier, sourceAgentId, msg.sender, actionType, payload, reasonCode, isOverride
        );
    }
}
