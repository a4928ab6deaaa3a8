// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {DepositForwarder} from "./DepositForwarder.sol";
import {IDepositForwarder} from "./interfaces/IDepositForwarder.sol";
import {IDepositForwarderFactory} from "./interfaces/IDepositForwarderFactory.sol";

/// @title Deposit forwarder factory
/// @notice See {IDepositForwarderFactory}. Holds no funds: a sweep moves them from the forwarder
/// straight to the hot wallet.
contract DepositForwarderFactory is IDepositForwarderFactory, AccessControl {
    bytes32 public constant SWEEPER_ROLE = keccak256("SWEEPER_ROLE");

    address private immutable _implementation;
    address private _hotWallet;

    constructor(address admin, address hotWallet_) {
        if (admin == address(0)) revert InvalidAddress(admin);
        // Deployed here, so the implementation's factory is this contract and nobody else's.
        _implementation = address(new DepositForwarder());
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _setHotWallet(hotWallet_);
    }

    /// @inheritdoc IDepositForwarderFactory
    function sweep(bytes32 salt, address[] calldata tokens)
        external
        onlyRole(SWEEPER_ROLE)
        returns (address forwarder)
    {
        forwarder = depositAddress(salt);
        if (forwarder.code.length == 0) {
            Clones.cloneDeterministic(_implementation, salt);
            emit ForwarderDeployed(salt, forwarder);
        }
        (uint256 nativeAmount, uint256[] memory tokenAmounts) = IDepositForwarder(forwarder).flush(tokens);
        if (nativeAmount > 0) emit Swept(salt, forwarder, address(0), nativeAmount);
        for (uint256 i = 0; i < tokens.length; ++i) {
            if (tokenAmounts[i] > 0) emit Swept(salt, forwarder, tokens[i], tokenAmounts[i]);
        }
    }

    /// @notice Where sweeps send from now on. Deposit addresses stay the same.
    function setHotWallet(address hotWallet_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setHotWallet(hotWallet_);
    }

    /// @inheritdoc IDepositForwarderFactory
    function depositAddress(bytes32 salt) public view returns (address) {
        return Clones.predictDeterministicAddress(_implementation, salt);
    }

    /// @inheritdoc IDepositForwarderFactory
    function isDeployed(bytes32 salt) external view returns (bool) {
        return depositAddress(salt).code.length > 0;
    }

    /// @inheritdoc IDepositForwarderFactory
    function hotWallet() external view returns (address) {
        return _hotWallet;
    }

    /// @inheritdoc IDepositForwarderFactory
    function forwarderImplementation() external view returns (address) {
        return _implementation;
    }

    function _setHotWallet(address hotWallet_) private {
        if (hotWallet_ == address(0)) revert InvalidAddress(hotWallet_);
        address previous = _hotWallet;
        _hotWallet = hotWallet_;
        emit HotWalletUpdated(previous, hotWallet_);
    }
}
