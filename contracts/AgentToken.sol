// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20Upgradeable} from "@openzeppelin/contracts-upgradeable/token/ERC20/ERC20Upgradeable.sol";
import {ERC20PermitUpgradeable} from
    "@openzeppelin/contracts-upgradeable/token/ERC20/extensions/ERC20PermitUpgradeable.sol";
import {ERC20VotesUpgradeable} from
    "@openzeppelin/contracts-upgradeable/token/ERC20/extensions/ERC20VotesUpgradeable.sol";
import {NoncesUpgradeable} from "@openzeppelin/contracts-upgradeable/utils/NoncesUpgradeable.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {IAgentToken} from "./interfaces/IAgentToken.sol";

/// @title Agent token (clone implementation)
/// @notice See {IAgentToken}. Deployed once; each spawn makes a minimal-proxy clone of it,
/// which keeps a spawn cheap and the spawner far below the contract size limit.
contract AgentToken is IAgentToken, ERC20VotesUpgradeable, ERC20PermitUpgradeable {
    /// @notice Recipients and amounts differ in length.
    error LengthMismatch(uint256 recipients, uint256 amounts);
    /// @notice Circulating supply is kept for recent timepoints only: from `oldest` on.
    error CirculatingLookupTooOld(uint256 timepoint, uint256 oldest);

    /// @notice Tokens here never vote: no key is known for it.
    address public constant BURN_ADDRESS = 0x000000000000000000000000000000000000dEaD;

    address private _pool;
    /// @dev Sum of every delegate's votes (only delegated balances are votes, so the pool's is
    /// not in it): its value now and just before the second of its last change, in one slot.
    /// WorkerVoting reads it just before a proposal, which this always answers; a full checkpoint
    /// history would cost a new storage slot (+25k gas) on most swaps instead of one rewrite.
    DelegatedVotes private _delegatedVotes;

    struct DelegatedVotes {
        uint48 changedAt;
        uint104 before;
        uint104 current;
    }

    /// @dev The implementation itself is never initialized; only clones are.
    constructor() {
        _disableInitializers();
    }

    /// @inheritdoc IAgentToken
    function initialize(
        string calldata name_,
        string calldata symbol_,
        address pool_,
        address[] calldata recipients,
        uint256[] calldata amounts
    ) external initializer {
        if (recipients.length != amounts.length) revert LengthMismatch(recipients.length, amounts.length);
        __ERC20_init(name_, symbol_);
        __ERC20Permit_init(name_);
        __ERC20Votes_init();
        _pool = pool_;
        for (uint256 i = 0; i < recipients.length; ++i) {
            _mint(recipients[i], amounts[i]);
        }
    }

    /// @inheritdoc IAgentToken
    function pool() external view returns (address) {
        return _pool;
    }

    /// @inheritdoc IAgentToken
    function getPastCirculatingSupply(uint256 timepoint) external view returns (uint256) {
        _validateTimepoint(timepoint);
        DelegatedVotes memory votes = _delegatedVotes;
        uint256 delegated;
        if (timepoint >= votes.changedAt) delegated = votes.current;
        else if (timepoint + 1 == votes.changedAt) delegated = votes.before;
        else revert CirculatingLookupTooOld(timepoint, votes.changedAt - 1);
        // The burn address self-delegated on receipt; votes delegated to it can never be cast either.
        return delegated - getPastVotes(BURN_ADDRESS, timepoint);
    }

    /// @notice Checkpoints are keyed by timestamp (ERC-6372), the clock WorkerVoting's delays and
    /// periods are measured in, so a proposal can fix its snapshot at a future second.
    function clock() public view override returns (uint48) {
        return uint48(block.timestamp);
    }

    /// @notice ERC-6372 description of {clock}.
    // solhint-disable-next-line func-name-mixedcase
    function CLOCK_MODE() public pure override returns (string memory) {
        return "mode=timestamp";
    }

    /// @inheritdoc NoncesUpgradeable
    function nonces(address owner)
        public
        view
        override(ERC20PermitUpgradeable, NoncesUpgradeable)
        returns (uint256)
    {
        return super.nonces(owner);
    }

    /// @dev Self-delegates a receiver that never chose a delegate, before its balance moves,
    /// so its voting weight follows its balance from the first receipt on.
    function _update(address from, address to, uint256 value)
        internal
        override(ERC20Upgradeable, ERC20VotesUpgradeable)
    {
        if (to != address(0) && to != _pool && delegates(to) == address(0)) {
            _delegate(to, to);
        }
        super._update(from, to, value);
    }

    /// @dev Every change of delegated votes passes here (transfers and re-delegations): a move
    /// between two delegates leaves the sum alone, so only moves to or from "no delegate" (the
    /// pool, or a holder who delegated to nobody) change it, about once per swap.
    function _moveDelegateVotes(address from, address to, uint256 amount) internal override {
        super._moveDelegateVotes(from, to, amount);
        if (from == to || amount == 0 || (from != address(0) && to != address(0))) return;
        DelegatedVotes memory votes = _delegatedVotes;
        uint48 now_ = clock();
        if (votes.changedAt != now_) (votes.changedAt, votes.before) = (now_, votes.current);
        uint104 delta = SafeCast.toUint104(amount);
        votes.current = from == address(0) ? votes.current + delta : votes.current - delta;
        _delegatedVotes = votes;
    }
}
