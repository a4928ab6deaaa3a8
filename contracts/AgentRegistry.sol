// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IAgentRegistry} from "./interfaces/IAgentRegistry.sol";

/// @title Agent registry
/// @notice See {IAgentRegistry}.
contract AgentRegistry is IAgentRegistry, ERC721, AccessControl {
    /// @notice May register agent tokens and create their workers (the spawner).
    bytes32 public constant REGISTRAR_ROLE = keccak256("REGISTRAR_ROLE");
    /// @notice May register queens and scouts and change worker status and operators.
    bytes32 public constant MANAGER_ROLE = keccak256("MANAGER_ROLE");
    /// @notice May change a worker's operator for the agent NFT's owner, who authenticated to the
    /// relayer off-chain (the ecosystem API's signed write), as the spawner's and voting's relayer may.
    bytes32 public constant RELAYER_ROLE = keccak256("RELAYER_ROLE");
    /// @notice May replace worker configs (managers' tooling and the voting contract).
    bytes32 public constant CONFIG_ROLE = keccak256("CONFIG_ROLE");
    /// @notice May stamp worker activity (the action log).
    bytes32 public constant ACTIVITY_ROLE = keccak256("ACTIVITY_ROLE");
    /// @notice May suspend and resume workers and scouts for overrides (the action log, which
    /// decides who may override whom).
    bytes32 public constant OVERRIDE_ROLE = keccak256("OVERRIDE_ROLE");

    uint256 public constant MAX_SLIPPAGE_CAP_BPS = 10_000;
    uint256 public constant MAX_SIGNAL_SUBSCRIPTIONS = 16;
    uint256 public constant MAX_SIGNAL_BYTES = 32;
    uint256 public constant MAX_DESCRIPTION_BYTES = 512;
    uint256 public constant MAX_URI_BYTES = 256;

    struct AgentRecord {
        AgentKind kind;
        address token; // agent tokens only
        address operator; // queens and scouts only
    }

    uint256 private _nextNftId = 1;
    uint256 private _nextWorkerId = 1;
    mapping(uint256 nftId => AgentRecord) private _agents;
    mapping(uint256 nftId => Metadata) private _metadata;
    mapping(address token => uint256 nftId) private _nftOfToken;
    mapping(address operator => uint256 nftId) private _agentOfOperator;
    mapping(uint256 workerId => Worker) private _workers;
    mapping(uint256 agentNftId => uint256 workerId) private _workerOfAgent;
    /// @dev How many workers each address operates: worker operators and queen or scout operators
    /// are kept apart, so the action log never has to guess which identity an address acts as.
    mapping(address operator => uint256 count) private _workersOperated;
    /// @dev Appended after the original state: override suspensions of workers and of scouts.
    mapping(uint256 workerId => Suspension) private _workerSuspensions;
    mapping(uint256 nftId => Suspension) private _agentSuspensions;

    constructor(address admin) ERC721("Agent", "AGENT") {
        if (admin == address(0)) revert InvalidAddress(admin);
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
    }

    /// @inheritdoc IAgentRegistry
    function registerAgentToken(address owner, address token, Metadata calldata metadata)
        external
        onlyRole(REGISTRAR_ROLE)
        returns (uint256 nftId)
    {
        if (token == address(0)) revert InvalidAddress(token);
        if (_nftOfToken[token] != 0) revert AlreadyRegistered(token);
        _checkMetadata(metadata);
        nftId = _nextNftId++;
        _agents[nftId] = AgentRecord({kind: AgentKind.Token, token: token, operator: address(0)});
        _nftOfToken[token] = nftId;
        _metadata[nftId] = metadata;
        _mint(owner, nftId);
        emit AgentTokenRegistered(nftId, token, owner, metadata);
    }

    /// @inheritdoc IAgentRegistry
    function createWorker(uint256 agentNftId, address operator, WorkerConfig calldata config)
        external
        onlyRole(REGISTRAR_ROLE)
        returns (uint256 workerId)
    {
        address token = tokenOfAgent(agentNftId);
        if (_workerOfAgent[agentNftId] != 0) revert AlreadyRegistered(token);
        _requireWorkerOperator(operator);
        _checkConfig(config);
        workerId = _nextWorkerId++;
        ++_workersOperated[operator];
        Worker storage worker = _workers[workerId];
        worker.agentNftId = agentNftId;
        worker.token = token;
        worker.operator = operator;
        worker.status = WorkerStatus.Active;
        worker.deployedAt = uint64(block.timestamp);
        worker.lastActiveAt = uint64(block.timestamp);
        worker.config = config;
        _workerOfAgent[agentNftId] = workerId;
        emit WorkerCreated(workerId, agentNftId, token, operator, config);
    }

    /// @inheritdoc IAgentRegistry
    function registerAgent(Tier tier, address operator, address owner)
        external
        onlyRole(MANAGER_ROLE)
        returns (uint256 nftId)
    {
        if (tier != Tier.Queen && tier != Tier.Scout) revert InvalidTier(tier);
        _requireAgentOperator(operator);
        nftId = _nextNftId++;
        AgentKind kind = tier == Tier.Queen ? AgentKind.Queen : AgentKind.Scout;
        _agents[nftId] = AgentRecord({kind: kind, token: address(0), operator: operator});
        _agentOfOperator[operator] = nftId;
        _mint(owner, nftId);
        emit AgentRegistered(nftId, tier, operator, owner);
    }

    /// @inheritdoc IAgentRegistry
    function setAgentOperator(uint256 nftId, address operator) external onlyRole(MANAGER_ROLE) {
        AgentRecord storage agent = _agents[nftId];
        AgentKind kind = agentKind(nftId);
        if (kind == AgentKind.Token) revert WrongAgentKind(nftId, kind);
        address previous = agent.operator;
        delete _agentOfOperator[previous];
        if (operator != address(0)) {
            _requireAgentOperator(operator);
            _agentOfOperator[operator] = nftId;
        }
        agent.operator = operator;
        emit AgentOperatorChanged(nftId, previous, operator);
    }

    /// @inheritdoc IAgentRegistry
    function setMetadata(uint256 nftId, Metadata calldata metadata) external {
        tokenOfAgent(nftId);
        _requireAgentOwner(nftId, msg.sender);
        _checkMetadata(metadata);
        _metadata[nftId] = metadata;
        emit MetadataUpdated(nftId, metadata);
    }

    /// @inheritdoc IAgentRegistry
    function setWorkerStatus(uint256 workerId, WorkerStatus status) external onlyRole(MANAGER_ROLE) {
        Worker storage worker = _worker(workerId);
        WorkerStatus previous = _statusOf(workerId, worker);
        delete _workerSuspensions[workerId];
        worker.status = status;
        emit WorkerStatusChanged(workerId, previous, status);
    }

    /// @inheritdoc IAgentRegistry
    function setWorkerConfig(uint256 workerId, WorkerConfig calldata config) external onlyRole(CONFIG_ROLE) {
        Worker storage worker = _worker(workerId);
        _checkConfig(config);
        worker.config = config;
        emit WorkerConfigUpdated(workerId, config);
    }

    /// @inheritdoc IAgentRegistry
    function setWorkerOperator(uint256 workerId, address operator) external {
        Worker storage worker = _worker(workerId);
        if (!hasRole(MANAGER_ROLE, msg.sender)) _requireAgentOwner(worker.agentNftId, msg.sender);
        _setWorkerOperator(workerId, worker, operator);
    }

    /// @inheritdoc IAgentRegistry
    function setWorkerOperatorFor(address owner, uint256 workerId, address operator)
        external
        onlyRole(RELAYER_ROLE)
    {
        Worker storage worker = _worker(workerId);
        _requireAgentOwner(worker.agentNftId, owner);
        _setWorkerOperator(workerId, worker, operator);
    }

    /// @inheritdoc IAgentRegistry
    function markWorkerActive(uint256 workerId) external onlyRole(ACTIVITY_ROLE) {
        uint64 nowTs = uint64(block.timestamp);
        _worker(workerId).lastActiveAt = nowTs;
        emit WorkerActive(workerId, nowTs);
    }

    /// @inheritdoc IAgentRegistry
    function suspendWorker(uint256 workerId, Tier byTier, uint256 byAgentId, uint64 until)
        external
        onlyRole(OVERRIDE_ROLE)
        returns (bool applied)
    {
        Worker storage worker = _worker(workerId);
        Suspension storage current = _workerSuspensions[workerId];
        WorkerStatus previous = _statusOf(workerId, worker);
        // In force now: a manager's (no tier) or an override's whose cool-off has not ended.
        bool suspended = previous == WorkerStatus.Suspended;
        if (suspended && (current.byTier == Tier.None || current.byTier > byTier)) return false;
        WorkerStatus resumeTo = suspended ? current.resumeTo : previous;
        _workerSuspensions[workerId] =
            Suspension({byTier: byTier, resumeTo: resumeTo, until: until, byAgentId: byAgentId});
        worker.status = WorkerStatus.Suspended;
        emit WorkerStatusChanged(workerId, previous, WorkerStatus.Suspended);
        emit WorkerSuspended(workerId, byTier, byAgentId, until, resumeTo);
        return true;
    }

    /// @inheritdoc IAgentRegistry
    function resumeWorker(uint256 workerId, Tier byTier, uint256 byAgentId) external onlyRole(OVERRIDE_ROLE) {
        Worker storage worker = _worker(workerId);
        Suspension memory current = _workerSuspensions[workerId];
        if (current.byTier == Tier.None) revert NotSuspendedByOverride(workerId);
        WorkerStatus previous = _statusOf(workerId, worker);
        delete _workerSuspensions[workerId];
        worker.status = current.resumeTo;
        emit WorkerStatusChanged(workerId, previous, current.resumeTo);
        emit WorkerResumed(workerId, byTier, byAgentId);
    }

    /// @inheritdoc IAgentRegistry
    function suspendAgent(uint256 nftId, Tier byTier, uint256 byAgentId, uint64 until)
        external
        onlyRole(OVERRIDE_ROLE)
        returns (bool applied)
    {
        _requireScout(nftId);
        Suspension storage current = _agentSuspensions[nftId];
        if (current.until > block.timestamp && current.byTier > byTier) return false;
        _agentSuspensions[nftId] =
            Suspension({byTier: byTier, resumeTo: WorkerStatus.Active, until: until, byAgentId: byAgentId});
        emit AgentSuspended(nftId, byTier, byAgentId, until);
        return true;
    }

    /// @inheritdoc IAgentRegistry
    function resumeAgent(uint256 nftId, Tier byTier, uint256 byAgentId) external onlyRole(OVERRIDE_ROLE) {
        _requireScout(nftId);
        if (_agentSuspensions[nftId].byTier == Tier.None) revert NotSuspendedByOverride(nftId);
        delete _agentSuspensions[nftId];
        emit AgentResumed(nftId, byTier, byAgentId);
    }

    /// @inheritdoc IAgentRegistry
    function validateConfig(WorkerConfig calldata config) external pure {
        _checkConfig(config);
    }

    /// @inheritdoc IAgentRegistry
    function getWorker(uint256 workerId) external view returns (Worker memory worker) {
        worker = _worker(workerId);
        worker.status = _statusOf(workerId, _workers[workerId]);
    }

    /// @inheritdoc IAgentRegistry
    function workerAuth(uint256 workerId) external view returns (address operator, WorkerStatus status) {
        Worker storage worker = _worker(workerId);
        return (worker.operator, _statusOf(workerId, worker));
    }

    /// @inheritdoc IAgentRegistry
    function workerSuspension(uint256 workerId) external view returns (Suspension memory) {
        _worker(workerId);
        return _workerSuspensions[workerId];
    }

    /// @inheritdoc IAgentRegistry
    function agentSuspension(uint256 nftId) external view returns (Suspension memory) {
        _requireScout(nftId);
        return _agentSuspensions[nftId];
    }

    /// @inheritdoc IAgentRegistry
    function workerOfAgent(uint256 agentNftId) external view returns (uint256) {
        return _workerOfAgent[agentNftId];
    }

    /// @inheritdoc IAgentRegistry
    function agentKind(uint256 nftId) public view returns (AgentKind) {
        if (_ownerOf(nftId) == address(0)) revert UnknownAgent(nftId);
        return _agents[nftId].kind;
    }

    /// @inheritdoc IAgentRegistry
    function tokenOfAgent(uint256 nftId) public view returns (address) {
        AgentKind kind = agentKind(nftId);
        if (kind != AgentKind.Token) revert WrongAgentKind(nftId, kind);
        return _agents[nftId].token;
    }

    /// @inheritdoc IAgentRegistry
    function agentOfToken(address token) external view returns (uint256) {
        return _nftOfToken[token];
    }

    /// @inheritdoc IAgentRegistry
    function agentOfOperator(address operator) external view returns (Tier tier, uint256 nftId) {
        nftId = _agentOfOperator[operator];
        if (nftId == 0) return (Tier.None, 0);
        tier = _agents[nftId].kind == AgentKind.Queen ? Tier.Queen : Tier.Scout;
    }

    /// @inheritdoc IAgentRegistry
    function metadataOf(uint256 nftId) external view returns (Metadata memory) {
        tokenOfAgent(nftId);
        return _metadata[nftId];
    }

    /// @inheritdoc IAgentRegistry
    function workerCount() external view returns (uint256) {
        return _nextWorkerId - 1;
    }

    /// @inheritdoc ERC721
    function supportsInterface(bytes4 interfaceId) public view override(ERC721, AccessControl) returns (bool) {
        return super.supportsInterface(interfaceId);
    }


    function _worker(uint256 workerId) private view returns (Worker storage worker) {
        worker = _workers[workerId];
        if (worker.token == address(0)) revert UnknownWorker(workerId);
    }

    /// @dev The status as of now: an override's suspension ends by itself at its `until`. Only a
    /// suspended worker's record is read, so active workers pay nothing for it.
    function _statusOf(uint256 workerId, Worker storage worker) private view returns (WorkerStatus) {
        WorkerStatus stored = worker.status;
        if (stored != WorkerStatus.Suspended) return stored;
        Suspension storage suspension = _workerSuspensions[workerId];
        if (suspension.byTier != Tier.None && suspension.until <= block.timestamp) return suspension.resumeTo;
        return stored;
    }

    function _setWorkerOperator(uint256 workerId, Worker storage worker, address operator) private {
        _requireWorkerOperator(operator);
        address previous = worker.operator;
        --_workersOperated[previous];
        ++_workersOperated[operator];
        worker.operator = operator;
        emit WorkerOperatorChanged(workerId, previous, operator);
    }

    /// @dev The NFT's current owner, not its creator: whoever holds the agent NFT holds its worker.
    function _requireAgentOwner(uint256 nftId, address account) private view {
        if (ownerOf(nftId) != account) revert NotAgentOwner(nftId, account);
    }

    function _requireScout(uint256 nftId) private view {
        AgentKind kind = agentKind(nftId);
        if (kind != AgentKind.Scout) revert WrongAgentKind(nftId, kind);
    }

    function _requireWorkerOperator(address operator) private view {
        if (operator == address(0)) revert InvalidAddress(operator);
        uint256 agent = _agentOfOperator[operator];
        if (agent != 0) revert OperatorInUse(operator, agent);
    }

    function _requireAgentOperator(address operator) private view {
        if (operator == address(0)) revert InvalidAddress(operator);
        uint256 existing = _agentOfOperator[operator];
        if (existing != 0) revert OperatorInUse(operator, existing);
        if (_workersOperated[operator] != 0) revert OperatorRunsWorkers(operator);
    }

    function _checkConfig(WorkerConfig calldata config) private pure {
        if (config.slippageCapBps > MAX_SLIPPAGE_CAP_BPS) revert InvalidSlippageCap(config.slippageCapBps);
        uint256 count = config.signalSubscriptions.length;
        if (count > MAX_SIGNAL_SUBSCRIPTIONS) revert InvalidSignalSubscriptions(count);
        for (uint256 i = 0; i < count; ++i) {
            uint256 length = bytes(config.signalSubscriptions[i]).length;
            if (length == 0 || length > MAX_SIGNAL_BYTES) revert InvalidSignalSubscriptions(count);
        }
    }

    function _checkMetadata(Metadata calldata metadata) private pure {
        _checkLength(bytes(metadata.description).length, MAX_DESCRIPTION_BYTES);
        _checkLength(bytes(metadata.logoUri).length, MAX_URI_BYTES);
        _checkLength(bytes(metadata.website).length, MAX_URI_BYTES);
    }

    function _checkLength(uint256 length, uint256 maxLength) private pure {
        if (length > maxLength) revert MetadataTooLong(length, maxLength);
    }
}
