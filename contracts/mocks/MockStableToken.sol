// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title Stable token for local chains
/// @notice 6 decimals like USDC. Anyone may mint: it is a faucet for development, never deploy it
/// to a chain where it could be mistaken for money.
contract MockStableToken is ERC20 {
    constructor() ERC20("Mock USD", "mUSD") {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
