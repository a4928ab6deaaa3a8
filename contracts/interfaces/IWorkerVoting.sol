// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAgentRegistry} from "./IAgentRegistry.sol";

/// @title Worker voting
/// @notice Holders of an agent token vote on proposals to change its worker's config.
/// Timeline (seconds, the agent token's ERC-6372 timestamp clock): a proposal made at `proposedAt`
/// is Pending for the voting delay; voting opens at `startTime` and closes at `endTime`.
/// A vote weighs the lesser of the voter's votes just before `proposedAt` and just before
/// `startTime` (the snapshot, as in OpenZeppelin's Governor, fixed in the future so every holder
/// can position while the proposal is pending). Weight bought after a proposal appears never
/// counts, and weight bought before it counts only if held through the whole delay: votes cannot
/// be bought for one block. Eligibility needs at least one whole token.
/// Quorum (yes + no + abstain) is a share of the votes that can be cast just before `proposedAt`
/// (the agent token's getPastCirculatingSupply: the supply less the pool's unsold balance, anything
/// undelegated and the burn address), never less than one whole token; it is fixed at proposal.
/// A Succeeded proposal can be executed for EXECUTION_WINDOW after `endTime`, and only while the
/// worker still has the config it had when the proposal was made.
interface IWorkerVoting {
    enum Support {
        Yes,
        No,
        Abstain
    }

    /// @notice Pending during the voting delay, Active while voting is open; once closed a proposal
    /// is Defeated or Succeeded, and a Succeeded one becomes Executed when its config is applied,
    /// Superseded when the worker's config changed since the proposal was made (a later proposal
    /// executed, or the admin set it), or Expired when nobody executed it within EXECUTION_WINDOW.
    /// New states are appended so the existing numbering stays stable for indexers.
    enum ProposalState {
        Active,
        Defeated,
        Succeeded,
        Executed,
        Superseded,
        Pending,
        Expired
    }

    /// @notice The running tally, as the API shows it. Thresholds are fixed when the proposal opens.
    struct Tally {
        uint256 yesWeight;
        uint256 noWeight;
        uint256 abstainWeight;
        uint256 quorumThreshold;
        bool quorumReached;
        uint16 passingThresholdBps;
        bool currentlyPassing;
    }

    /// @notice A proposal as stored.
    struct Proposal {
        uint256 workerId;
        address token;
        address proposer;
        /// @dev When the proposal was made; holdings just before it cap every vote's weight.
        uint64 proposedAt;
        /// @dev Voting opens here; the snapshot is `startTime - 1`.
        uint64 startTime;
        uint64 endTime;
        uint16 passingThresholdBps;
        bool executed;
        uint256 quorumThreshold;
        uint256 yesWeight;
        uint256 noWeight;
        uint256 abstainWeight;
        IAgentRegistry.WorkerConfig config;
    }

    event ProposalCreated(
        uint256 indexed proposalId,
        uint256 indexed workerId,
        address indexed proposer,
        address token,
        uint64 proposedAt,
        uint64 startTime,
        uint64 endTime,
        uint256 quorumThreshold,
        uint16 passingThresholdBps,
        IAgentRegistry.WorkerConfig config,
        string description
    );
    /// @notice One vote. `relayed` is true when a relayer cast it for `voter`.
    event VoteCast(
        uint256 indexed voteId,
        uint256 indexed proposalId,
        address indexed voter,
        Support support,
        uint256 weight,
        string comment,
        bool relayed
    );
    event ProposalExecuted(uint256 indexed proposalId, uint256 indexed workerId);
    event VotingDelayUpdated(uint64 previous, uint64 current);
    event VotingPeriodUpdated(uint64 previous, uint64 current);
    event QuorumUpdated(uint16 previousBps, uint16 currentBps);
    event PassingThresholdUpdated(uint16 previousBps, uint16 currentBps);

    error ProposalNotFound(uint256 proposalId);
    error ProposalClosed(uint256 proposalId);
    /// @notice The proposal is Pending: votes are accepted from `startsAt` (a timestamp) on.
    error VotingNotStarted(uint256 proposalId, uint64 startsAt);
    error AlreadyVoted(uint256 proposalId, address voter);
    /// @notice The account's weight (the lesser of its votes before the proposal and at the
    /// snapshot) is below one whole token.
    error NoHoldings(address account, uint256 weight, uint256 required);
    error ProposalNotSucceeded(uint256 proposalId, ProposalState state);
    error InvalidBps(uint256 bps);
    error InvalidVotingPeriod(uint256 period);
    error InvalidVotingDelay(uint256 delay);
    error CommentTooLong(uint256 length, uint256 maxLength);
    error InvalidAddress(address account);

    /// @notice Opens a proposal to set worker `workerId`'s config to `config`. The caller must hold
    /// at least one whole token of the worker's agent token, or have the proposer role. The config
    /// is validated now (with the registry's errors), so a passed proposal can always be executed.
    function propose(uint256 workerId, IAgentRegistry.WorkerConfig calldata config, string calldata description)
        external
        returns (uint256 proposalId);

    /// @notice Opens a proposal for `proposer`; relayer role only (the API relays signed user
    /// proposals). The proposer rules are `proposer`'s: at least one whole token of votes just
    /// before now, unless `proposer` has the proposer role. ProposalCreated names `proposer`.
    function proposeFor(
        address proposer,
        uint256 workerId,
        IAgentRegistry.WorkerConfig calldata config,
        string calldata description
    ) external returns (uint256 proposalId);

    /// @notice Casts the caller's vote.
    function castVote(uint256 proposalId, Support support, string calldata comment)
        external
        returns (uint256 voteId, uint256 weight);

    /// @notice Casts `voter`'s vote; relayer role only (the API relays signed user votes).
    function castVoteFor(address voter, uint256 proposalId, Support support, string calldata comment)
        external
        returns (uint256 voteId, uint256 weight);

    /// @notice Applies a Succeeded proposal's config to the worker; anyone may call. Reverts with
    /// ProposalNotSucceeded(Superseded) once the worker's config changed since the proposal was
    /// made, and with ProposalNotSucceeded(Expired) from `endTime + EXECUTION_WINDOW` on.
    function execute(uint256 proposalId) external;

    function state(uint256 proposalId) external view returns (ProposalState);

    function getTally(uint256 proposalId) external view returns (Tally memory);

    function getProposal(uint256 proposalId) external view returns (Proposal memory);

    function hasVoted(uint256 proposalId, address voter) external view returns (bool);

    function proposalCount() external view returns (uint256);
}
