// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20Upgradeable} from "@openzeppelin/contracts-upgradeable/token/ERC20/ERC20Upgradeable.sol";
import {ERC20PermitUpgradeable} from
    "@openzeppelin/contracts-upgradeable/token/ERC20/extensions/ERC20PermitUpgradeable.sol";
import {ERC20VotesUpgradeable} from
    "@openzeppelin/contracts-upgradeable/token/ERC20/extensions/ERC20VotesUpgradeable.sol";
import {NoncesUpgradeable} from "@openzeppelin/contracts-upgradeable/utils/NoncesUpgradeable.sol";
import {IAgentToken} from "./interfaces/IAgentToken.sol";

/// @title Agent token (clone implementation)
/// @notice See {IAgentToken}. Deployed once; each spawn makes a minimal-proxy clone of it,
/// which keeps a spawn cheap and the spawner far below the contract size limit.
contract AgentToken is IAgentToken, ERC20VotesUpgradeable, ERC20PermitUpgradeable {
    /// @notice Recipients and amounts differ in length.
    error LengthMismatch(uint256 recipients, uint256 amounts);

    address private _pool;

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
}
