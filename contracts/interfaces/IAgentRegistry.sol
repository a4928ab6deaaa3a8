// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title Agent registry
/// @notice ERC-721 agent NFTs for agent tokens, queens and scouts, plus the workers that manage
/// agent tokens. Workers are records attached to an agent token's NFT; queens and scouts are
/// NFTs of their own, each acted for by one operator address.
interface IAgentRegistry {
    /// @notice Authority of an agent, lowest first: a higher tier may override a lower one.
    enum Tier {
        None,
        Worker,
        Scout,
        Queen
    }

    /// @notice What an agent NFT stands for.
    enum AgentKind {
        Token,
        Queen,
        Scout
    }

    /// @notice Worker lifecycle: `Active` workers form the swarm.
    enum WorkerStatus {
        Active,
        Idle,
        Suspended
    }

    /// @notice How a worker shields its trades from MEV.
    enum MevProtection {
        Off,
        PrivateRelay,
        BatchAuction
    }

    /// @notice Tunable parameters of a worker, changed by its manager or by a passed vote.
    struct WorkerConfig {
        uint16 slippageCapBps;
        MevProtection mevProtection;
        string[] signalSubscriptions;
    }

    /// @notice Free-form description of an agent token, stored on-chain at spawn.
    struct Metadata {
        string description;
        string logoUri;
        string website;
    }

    /// @notice An override's suspension, imposed through the action log (see {IActionLog}).
    /// `byTier` is `Tier.None` when there is none: a worker suspended by a manager carries none,
    /// and only a manager lifts that. It ends when the overriding tier (or a higher one) resumes,
    /// or by itself at `until`; a worker then returns to `resumeTo`, its status before the
    /// override. For a scout `resumeTo` is unused.
    struct Suspension {
        Tier byTier;
        WorkerStatus resumeTo;
        uint64 until;
        uint256 byAgentId;
    }

    /// @notice A worker as stored.
    struct Worker {
        uint256 agentNftId;
        address token;
        address operator;
        WorkerStatus status;
        uint64 deployedAt;
        uint64 lastActiveAt;
        WorkerConfig config;
    }

    /// @notice An agent token's NFT was minted to its owner.
    event AgentTokenRegistered(
        uint256 indexed nftId, address indexed token, address indexed owner, Metadata metadata
    );
    /// @notice A queen or scout was registered.
    event AgentRegistered(uint256 indexed nftId, Tier indexed tier, address indexed operator, address owner);
    /// @notice The operator acting for a queen or scout changed; address(0) disables the agent.
    event AgentOperatorChanged(uint256 indexed nftId, address indexed previousOperator, address indexed newOperator);
    /// @notice An agent token's metadata changed.
    event MetadataUpdated(uint256 indexed nftId, Metadata metadata);
    /// @notice A worker was created for an agent token and joined the swarm.
    event WorkerCreated(
        uint256 indexed workerId,
        uint256 indexed agentNftId,
        address indexed token,
        address operator,
        WorkerConfig config
    );
    /// @notice A worker's status changed.
    event WorkerStatusChanged(uint256 indexed workerId, WorkerStatus previousStatus, WorkerStatus newStatus);
    /// @notice A worker's config changed (by its manager or by an executed proposal).
    event WorkerConfigUpdated(uint256 indexed workerId, WorkerConfig config);
    /// @notice The operator acting for a worker changed.
    event WorkerOperatorChanged(
        uint256 indexed workerId, address indexed previousOperator, address indexed newOperator
    );
    /// @notice A worker acted (recorded an action) at `timestamp`.
    event WorkerActive(uint256 indexed workerId, uint64 timestamp);
    /// @notice An override suspended a worker until `until` (or until resumed), after which it is
    /// `resumeTo` again. Emitted right after the `WorkerStatusChanged` of the same suspension.
    event WorkerSuspended(
        uint256 indexed workerId, Tier indexed byTier, uint256 indexed byAgentId, uint64 until, WorkerStatus resumeTo
    );
    /// @notice An override's suspension was lifted before its cool-off ended. Emitted right after
    /// the `WorkerStatusChanged` back to the status before the override.
    event WorkerResumed(uint256 indexed workerId, Tier indexed byTier, uint256 indexed byAgentId);
    /// @notice The queen suspended a scout (agent NFT `nftId`) until `until` (or until resumed).
    event AgentSuspended(uint256 indexed nftId, Tier indexed byTier, uint256 indexed byAgentId, uint64 until);
    /// @notice A scout's suspension was lifted before its cool-off ended.
    event AgentResumed(uint256 indexed nftId, Tier indexed byTier, uint256 indexed byAgentId);

    /// @notice No agent NFT with this id.
    error UnknownAgent(uint256 nftId);
    /// @notice The NFT exists but is not of the kind the call needs.
    error WrongAgentKind(uint256 nftId, AgentKind kind);
    /// @notice No worker with this id.
    error UnknownWorker(uint256 workerId);
    /// @notice The token already has a registered NFT (or a worker).
    error AlreadyRegistered(address token);
    /// @notice `tier` cannot be registered this way (only Queen and Scout can).
    error InvalidTier(Tier tier);
    /// @notice The operator already acts for a queen or scout (`nftId`): one address, one identity.
    error OperatorInUse(address operator, uint256 nftId);
    /// @notice The operator runs workers, so it cannot also act as a queen or scout.
    error OperatorRunsWorkers(address operator);
    /// @notice The address is not acceptable here.
    error InvalidAddress(address account);
    /// @notice Slippage cap above 100%.
    error InvalidSlippageCap(uint256 slippageCapBps);
    /// @notice Too many signal subscriptions, or one is empty or too long.
    error InvalidSignalSubscriptions(uint256 count);
    /// @notice A metadata field is longer than allowed.
    error MetadataTooLong(uint256 length, uint256 maxLength);
    /// @notice Only the NFT's owner may do this (`caller`: the account that is not its owner).
    error NotAgentOwner(uint256 nftId, address caller);
    /// @notice No override's suspension to lift on this worker or agent (none, or a manager's).
    error NotSuspendedByOverride(uint256 id);

    /// @notice Mints the NFT of a newly spawned agent token to `owner`.
    /// @dev Restricted to the registrar role (the spawner).
    function registerAgentToken(address owner, address token, Metadata calldata metadata)
        external
        returns (uint256 nftId);

    /// @notice Creates the worker of an agent token; it starts `Active`.
    /// @dev Restricted to the registrar role (the spawner).
    function createWorker(uint256 agentNftId, address operator, WorkerConfig calldata config)
        external
        returns (uint256 workerId);

    /// @notice Registers a queen or scout acted for by `operator`; the NFT goes to `owner`.
    function registerAgent(Tier tier, address operator, address owner) external returns (uint256 nftId);

    /// @notice Replaces the operator of a queen or scout; address(0) disables it.
    function setAgentOperator(uint256 nftId, address operator) external;

    /// @notice Replaces an agent token's metadata; only the NFT's owner may.
    function setMetadata(uint256 nftId, Metadata calldata metadata) external;

    /// @notice Changes a worker's status. A manager's word is final: it ends any override's
    /// suspension (a manager's `Suspended` lasts until a manager changes it).
    function setWorkerStatus(uint256 workerId, WorkerStatus status) external;

    /// @notice Replaces a worker's config.
    function setWorkerConfig(uint256 workerId, WorkerConfig calldata config) external;

    /// @notice Replaces the operator acting for a worker: the agent token's owner (the current
    /// owner of its agent NFT) hands the worker to an agent of its own, or back to the reference
    /// runtime's operator; a manager may too. The new operator records the worker's actions from
    /// the next transaction on, and the previous one may no longer. Emits `WorkerOperatorChanged`.
    /// @dev Reverts with `UnknownWorker` for an unknown worker, `NotAgentOwner(agentNftId, caller)`
    /// when the caller is neither the NFT's owner nor a manager, `InvalidAddress` for the zero
    /// address and `OperatorInUse` for a queen's or scout's operator.
    function setWorkerOperator(uint256 workerId, address operator) external;

    /// @notice As `setWorkerOperator`, sent by the relayer for `owner`, who authenticated to it
    /// off-chain (the ecosystem API's signed write): `owner` must own the worker's agent NFT.
    /// @dev Restricted to the relayer role. Reverts with `NotAgentOwner(agentNftId, owner)` when
    /// `owner` does not own it, and otherwise as `setWorkerOperator`.
    function setWorkerOperatorFor(address owner, uint256 workerId, address operator) external;

    /// @notice Stamps a worker's lastActiveAt with the current time.
    /// @dev Restricted to the activity role (the action log).
    function markWorkerActive(uint256 workerId) external;

    /// @notice Suspends a worker for an override by `byTier` (agent `byAgentId`) until `until`.
    /// Never weakens a suspension in force: a manager's, or an override's by a higher tier, stays
    /// as it is (returns false). Otherwise the suspension is set, replacing one by the same or a
    /// lower tier or one whose cool-off ended (returns true).
    /// @dev Restricted to the override role (the action log, which checks who may override whom).
    function suspendWorker(uint256 workerId, Tier byTier, uint256 byAgentId, uint64 until)
        external
        returns (bool applied);

    /// @notice Lifts a worker's override suspension (in force or ended): it returns to its status
    /// before the override. Reverts with `NotSuspendedByOverride` when there is none.
    /// @dev Restricted to the override role (the action log, which checks the resuming tier).
    function resumeWorker(uint256 workerId, Tier byTier, uint256 byAgentId) external;

    /// @notice Suspends a scout (agent NFT `nftId`): its operator may not record until `until` or
    /// until resumed. Same rules as `suspendWorker`; reverts `WrongAgentKind` for other NFTs.
    /// @dev Restricted to the override role.
    function suspendAgent(uint256 nftId, Tier byTier, uint256 byAgentId, uint64 until)
        external
        returns (bool applied);

    /// @notice Lifts a scout's suspension (in force or ended); `NotSuspendedByOverride` when none.
    /// @dev Restricted to the override role.
    function resumeAgent(uint256 nftId, Tier byTier, uint256 byAgentId) external;

    /// @notice Reverts with the registry's errors when `config` is not a valid worker config.
    function validateConfig(WorkerConfig calldata config) external pure;

    /// @notice The worker with this id; `status` is as of now (an override whose cool-off ended
    /// no longer counts).
    function getWorker(uint256 workerId) external view returns (Worker memory);

    /// @notice Operator and status as of now of a worker, the part the action log checks (cheaper
    /// than getWorker).
    function workerAuth(uint256 workerId) external view returns (address operator, WorkerStatus status);

    /// @notice The worker's override suspension as stored (`byTier` None if none); it is in force
    /// while the worker's status is `Suspended` and `until` is after now.
    function workerSuspension(uint256 workerId) external view returns (Suspension memory);

    /// @notice A scout's suspension as stored (`byTier` None if none); in force while `until` is after now.
    function agentSuspension(uint256 nftId) external view returns (Suspension memory);

    /// @notice The worker id of an agent token's NFT, 0 if none.
    function workerOfAgent(uint256 agentNftId) external view returns (uint256);

    /// @notice What an NFT stands for; reverts for unknown ids.
    function agentKind(uint256 nftId) external view returns (AgentKind);

    /// @notice The agent token of a token NFT; reverts for other kinds.
    function tokenOfAgent(uint256 nftId) external view returns (address);

    /// @notice The NFT id of an agent token, 0 if not registered.
    function agentOfToken(address token) external view returns (uint256);

    /// @notice The tier and NFT id of the queen or scout that `operator` acts for (Tier.None if none).
    function agentOfOperator(address operator) external view returns (Tier tier, uint256 nftId);

    /// @notice An agent token's metadata.
    function metadataOf(uint256 nftId) external view returns (Metadata memory);

    /// @notice Number of workers created so far (also the last worker id); queen, scout and token NFTs are not counted.
    function workerCount() external view returns (uint256);
}
