// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IVotes} from "@openzeppelin/contracts/governance/utils/IVotes.sol";
import {IAgentToken} from "./interfaces/IAgentToken.sol";
import {IWorkerVoting} from "./interfaces/IWorkerVoting.sol";
import {IAgentRegistry} from "./interfaces/IAgentRegistry.sol";

/// @title Worker voting
/// @notice See {IWorkerVoting}. Quorum counts yes, no and abstain weight; a proposal passes when
/// quorum is reached and yes / (yes + no) is strictly above the passing threshold.
/// @dev Timepoints are agent-token clock values (timestamps, ERC-6372 `mode=timestamp`).
contract WorkerVoting is IWorkerVoting, AccessControl {
    bytes32 public constant RELAYER_ROLE = keccak256("RELAYER_ROLE");
    bytes32 public constant PROPOSER_ROLE = keccak256("PROPOSER_ROLE");

    uint256 public constant MIN_WEIGHT = 1e18;
    uint256 public constant MAX_COMMENT_BYTES = 280;
    /// @notice How long after `endTime` a Succeeded proposal can still be executed.
    uint64 public constant EXECUTION_WINDOW = 7 days;
    /// @notice Bounds of the voting delay: at least an hour for holders to see a proposal coming.
    uint64 public constant MIN_VOTING_DELAY = 1 hours;
    uint64 public constant MAX_VOTING_DELAY = 30 days;
    uint256 private constant BPS = 10_000;

    IAgentRegistry private immutable _registry;
    uint64 private _votingDelay;
    uint64 private _votingPeriod;
    uint16 private _quorumBps;
    uint16 private _passingThresholdBps;
    uint256 private _proposalCount;
    uint256 private _voteCount;
    mapping(uint256 proposalId => Proposal) private _proposals;
    mapping(uint256 proposalId => mapping(address voter => bool)) private _voted;
    mapping(uint256 workerId => uint256 proposalId) private _lastExecuted;
    /// @dev Hash of the worker's config when the proposal was made: execution over any other
    /// config (a newer admin setting, another executed proposal) would silently undo it.
    mapping(uint256 proposalId => bytes32) private _baseConfigHash;

    constructor(
        IAgentRegistry registry_,
        address admin,
        uint64 votingDelay_,
        uint64 votingPeriod_,
        uint16 quorumBps_,
        uint16 passingBps_
    ) {
        if (address(registry_) == address(0)) revert InvalidAddress(address(registry_));
        if (admin == address(0)) revert InvalidAddress(admin);
        _registry = registry_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _setVotingDelay(votingDelay_);
        _setVotingPeriod(votingPeriod_);
        _setQuorumBps(quorumBps_);
        _setPassingThresholdBps(passingBps_);
    }

    /// @inheritdoc IWorkerVoting
    function propose(uint256 workerId, IAgentRegistry.WorkerConfig calldata config, string calldata description)
        external
        returns (uint256 proposalId)
    {
        return _propose(msg.sender, workerId, config, description);
    }

    /// @inheritdoc IWorkerVoting
    function proposeFor(
        address proposer,
        uint256 workerId,
        IAgentRegistry.WorkerConfig calldata config,
        string calldata description
    ) external onlyRole(RELAYER_ROLE) returns (uint256 proposalId) {
        if (proposer == address(0)) revert InvalidAddress(proposer);
        return _propose(proposer, workerId, config, description);
    }

    function _propose(
        address proposer,
        uint256 workerId,
        IAgentRegistry.WorkerConfig calldata config,
        string calldata description
    ) private returns (uint256 proposalId) {
        IAgentRegistry.Worker memory worker = _registry.getWorker(workerId);
        address token = worker.token;
        _registry.validateConfig(config);
        uint64 nowTs = uint64(block.timestamp);
        if (!hasRole(PROPOSER_ROLE, proposer)) _requireWeight(token, proposer, nowTs - 1);
        proposalId = ++_proposalCount;
        Proposal storage p = _proposals[proposalId];
        p.workerId = workerId;
        p.token = token;
        p.proposer = proposer;
        p.proposedAt = nowTs;
        p.startTime = nowTs + _votingDelay;
        p.endTime = p.startTime + _votingPeriod;
        p.passingThresholdBps = _passingThresholdBps;
        p.quorumThreshold = _quorumAt(token, nowTs - 1);
        p.config = config;
        _baseConfigHash[proposalId] = _configHash(worker.config);
        _emitProposalCreated(proposalId, p, description);
    }

    /// @inheritdoc IWorkerVoting
    function castVote(uint256 proposalId, Support support, string calldata comment)
        external
        returns (uint256 voteId, uint256 weight)
    {
        return _castVote(msg.sender, proposalId, support, comment, false);
    }

    /// @inheritdoc IWorkerVoting
    function castVoteFor(address voter, uint256 proposalId, Support support, string calldata comment)
        external
        onlyRole(RELAYER_ROLE)
        returns (uint256 voteId, uint256 weight)
    {
        return _castVote(voter, proposalId, support, comment, true);
    }

    /// @inheritdoc IWorkerVoting
    function execute(uint256 proposalId) external {
        ProposalState current = state(proposalId);
        if (current != ProposalState.Succeeded) revert ProposalNotSucceeded(proposalId, current);
        Proposal storage p = _proposals[proposalId];
        p.executed = true;
        _lastExecuted[p.workerId] = proposalId;
        emit ProposalExecuted(proposalId, p.workerId);
        _registry.setWorkerConfig(p.workerId, p.config);
    }

    /// @notice Sets the voting delay (seconds from proposal to voting start) of proposals made from now on.
    function setVotingDelay(uint64 delay) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setVotingDelay(delay);
    }

    /// @notice Sets the voting period of proposals opened from now on.
    function setVotingPeriod(uint64 period) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setVotingPeriod(period);
    }

    /// @notice Sets the quorum, in bps of the token's circulating votes just before the proposal
    /// (at least one whole token), for new proposals.
    function setQuorumBps(uint16 bps) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setQuorumBps(bps);
    }

    /// @notice Sets the passing threshold, in bps of yes / (yes + no), for new proposals.
    function setPassingThresholdBps(uint16 bps) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setPassingThresholdBps(bps);
    }

    /// @inheritdoc IWorkerVoting
    function state(uint256 proposalId) public view returns (ProposalState) {
        Proposal storage p = _proposal(proposalId);
        if (p.executed) return ProposalState.Executed;
        if (block.timestamp < p.startTime) return ProposalState.Pending;
        if (block.timestamp < p.endTime) return ProposalState.Active;
        if (!_isPassing(p)) return ProposalState.Defeated;
        if (proposalId < _lastExecuted[p.workerId]) return ProposalState.Superseded;
        if (_configHash(_registry.getWorker(p.workerId).config) != _baseConfigHash[proposalId]) {
            return ProposalState.Superseded;
        }
        if (block.timestamp >= uint256(p.endTime) + EXECUTION_WINDOW) return ProposalState.Expired;
        return ProposalState.Succeeded;
    }

    /// @inheritdoc IWorkerVoting
    function getTally(uint256 proposalId) external view returns (Tally memory) {
        Proposal storage p = _proposal(proposalId);
        return Tally({
            yesWeight: p.yesWeight,
            noWeight: p.noWeight,
            abstainWeight: p.abstainWeight,
            quorumThreshold: p.quorumThreshold,
            quorumReached: _quorumReached(p),
            passingThresholdBps: p.passingThresholdBps,
            currentlyPassing: _isPassing(p)
        });
    }

    /// @inheritdoc IWorkerVoting
    function getProposal(uint256 proposalId) external view returns (Proposal memory) {
        return _proposal(proposalId);
    }

    /// @inheritdoc IWorkerVoting
    function hasVoted(uint256 proposalId, address voter) external view returns (bool) {
        return _voted[proposalId][voter];
    }

    /// @inheritdoc IWorkerVoting
    function proposalCount() external view returns (uint256) {
        return _proposalCount;
    }

    /// @notice Current settings for new proposals.
    function settings()
        external
        view
        returns (uint64 votingDelay, uint64 votingPeriod, uint16 quorumBps, uint16 passingThresholdBps)
    {
        return (_votingDelay, _votingPeriod, _quorumBps, _passingThresholdBps);
    }

    function _castVote(address voter, uint256 proposalId, Support support, string calldata comment, bool relayed)
        private
        returns (uint256 voteId, uint256 weight)
    {
        Proposal storage p = _proposal(proposalId);
        if (p.executed || block.timestamp >= p.endTime) revert ProposalClosed(proposalId);
        if (block.timestamp < p.startTime) revert VotingNotStarted(proposalId, p.startTime);
        if (_voted[proposalId][voter]) revert AlreadyVoted(proposalId, voter);
        if (bytes(comment).length > MAX_COMMENT_BYTES) revert CommentTooLong(bytes(comment).length, MAX_COMMENT_BYTES);
        weight = _requireVotingWeight(p, voter);
        _voted[proposalId][voter] = true;
        if (support == Support.Yes) p.yesWeight += weight;
        else if (support == Support.No) p.noWeight += weight;
        else p.abstainWeight += weight;
        voteId = ++_voteCount;
        emit VoteCast(voteId, proposalId, voter, support, weight, comment, relayed);
    }

    function _emitProposalCreated(uint256 proposalId, Proposal storage p, string calldata description) private {
        emit ProposalCreated(
            proposalId,
            p.workerId,
            p.proposer,
            p.token,
            p.proposedAt,
            p.startTime,
            p.endTime,
            p.quorumThreshold,
            p.passingThresholdBps,
            p.config,
            description
        );
    }

    function _requireWeight(address token, address account, uint256 snapshot) private view returns (uint256 weight) {
        weight = IVotes(token).getPastVotes(account, snapshot);
        if (weight < MIN_WEIGHT) revert NoHoldings(account, weight, MIN_WEIGHT);
    }

    /// @dev The lesser of the votes just before the proposal and at the snapshot (just before
    /// voting opened): weight must have been held across the whole voting delay to count.
    function _requireVotingWeight(Proposal storage p, address voter) private view returns (uint256 weight) {
        IVotes token = IVotes(p.token);
        uint256 before = token.getPastVotes(voter, p.proposedAt - 1);
        uint256 atSnapshot = token.getPastVotes(voter, p.startTime - 1);
        weight = before < atSnapshot ? before : atSnapshot;
        if (weight < MIN_WEIGHT) revert NoHoldings(voter, weight, MIN_WEIGHT);
    }

    function _configHash(IAgentRegistry.WorkerConfig memory config) private pure returns (bytes32) {
        return keccak256(abi.encode(config));
    }

    function _proposal(uint256 proposalId) private view returns (Proposal storage p) {
        p = _proposals[proposalId];
        if (p.token == address(0)) revert ProposalNotFound(proposalId);
    }

    /// @dev Quorum is a share of the votes that can be cast just before the proposal, the
    /// holdings that cap every vote's weight: the pool's unsold supply never votes, so counting it
    /// would make quorum unreachable for a thinly traded token. At least one whole token (the
    /// least any vote weighs), so a proposal with no votes never shows quorum reached.
    function _quorumAt(address token, uint256 timepoint) private view returns (uint256 quorum) {
        quorum = (IAgentToken(token).getPastCirculatingSupply(timepoint) * _quorumBps) / BPS;
        if (quorum < MIN_WEIGHT) quorum = MIN_WEIGHT;
    }

    function _quorumReached(Proposal storage p) private view returns (bool) {
        return p.yesWeight + p.noWeight + p.abstainWeight >= p.quorumThreshold;
    }

    function _isPassing(Proposal storage p) private view returns (bool) {
        uint256 decided = p.yesWeight + p.noWeight;
        return _quorumReached(p) && decided > 0 && p.yesWeight * BPS > decided * p.passingThresholdBps;
    }

    function _setVotingDelay(uint64 delay) private {
        if (delay < MIN_VOTING_DELAY || delay > MAX_VOTING_DELAY) revert InvalidVotingDelay(delay);
        uint64 previous = _votingDelay;
        _votingDelay = delay;
        emit VotingDelayUpdated(previous, delay);
    }

    function _setVotingPeriod(uint64 period) private {
        if (period == 0 || period > 365 days) revert InvalidVotingPeriod(period);
        uint64 previous = _votingPeriod;
        _votingPeriod = period;
        emit VotingPeriodUpdated(previous, period);
    }

    function _setQuorumBps(uint16 bps) private {
        if (bps > BPS) revert InvalidBps(bps);
        uint16 previous = _quorumBps;
        _quorumBps = bps;
        emit QuorumUpdated(previous, bps);
    }

    function _setPassingThresholdBps(uint16 bps) private {
        if (bps >= BPS) revert InvalidBps(bps);
        uint16 previous = _passingThresholdBps;
        _passingThresholdBps = bps;
        emit PassingThresholdUpdated(previous, bps);
    }
}
