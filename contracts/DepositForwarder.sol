// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {IDepositForwarder} from "./interfaces/IDepositForwarder.sol";
import {IDepositForwarderFactory} from "./interfaces/IDepositForwarderFactory.sol";

/// @title Deposit forwarder
/// @notice See {IDepositForwarder}. The implementation behind every deposit address; the factory
/// deploys it in its own constructor, so `factory` is an immutable in its code, shared by every
/// clone and settable by nobody. There is no storage and no initializer.
contract DepositForwarder is IDepositForwarder {
    using SafeERC20 for IERC20;

    address private immutable _factory;

    constructor() {
        _factory = msg.sender;
    }

    /// @notice Native deposits to a deployed forwarder (a plain transfer).
    receive() external payable {}

    /// @inheritdoc IDepositForwarder
    function flush(address[] calldata tokens) external returns (uint256 nativeAmount, uint256[] memory tokenAmounts) {
        if (msg.sender != _factory) revert NotFactory(msg.sender);
        // The destination comes from the factory, never from the call.
        address hotWallet = IDepositForwarderFactory(_factory).hotWallet();
        tokenAmounts = new uint256[](tokens.length);
        for (uint256 i = 0; i < tokens.length; ++i) {
            address token = tokens[i];
            if (token.code.length == 0) revert NotAToken(token);
            uint256 amount = IERC20(token).balanceOf(address(this));
            if (amount == 0) continue;
            tokenAmounts[i] = amount;
            IERC20(token).safeTransfer(hotWallet, amount);
        }
        nativeAmount = address(this).balance;
        if (nativeAmount > 0) Address.sendValue(payable(hotWallet), nativeAmount);
    }

    /// @inheritdoc IDepositForwarder
    function factory() external view returns (address) {
        return _factory;
    }
}
