// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title Deposit forwarder
/// @notice One user's deposit address: a minimal proxy (EIP-1167) that the deposit factory
/// deploys with CREATE2 at the address it predicted, usually long after the first deposit. Until
/// then the address has no code and takes native coin and ERC-20 transfers like any empty
/// account; once deployed it keeps taking both (`receive`). It holds what it receives until the
/// factory flushes it, and a flush sends only ever to the factory's hot wallet: the forwarder reads
/// the destination from its factory, takes calls from its factory alone and has no initializer, so
/// there is nothing to redirect and nothing to initialise again.
/// @dev A deployed forwarder runs through a DELEGATECALL to its implementation, which costs more
/// than the 2,300 gas of Solidity's `transfer`/`send`: a contract paying native coin that way
/// fails once the forwarder is deployed (it succeeds while the address is still counterfactual).
/// Plain transactions and calls forwarding their gas are unaffected.
interface IDepositForwarder {
    /// @notice Only the factory that deployed the implementation may flush.
    error NotFactory(address caller);
    /// @notice A token to flush is an account without code (address(0) included; native coin is
    /// always flushed and is never listed).
    error NotAToken(address token);

    /// @notice Sends the whole native balance and the whole balance of each ERC-20 in `tokens` to
    /// the factory's hot wallet. Zero balances are skipped; a listed token twice is sent once.
    /// @return nativeAmount Native coin sent, in wei.
    /// @return tokenAmounts What was sent of each `tokens[i]`, in its base units (what left the
    /// forwarder: a fee-on-transfer token delivers less).
    function flush(address[] calldata tokens) external returns (uint256 nativeAmount, uint256[] memory tokenAmounts);

    /// @notice The deposit factory: the only caller of `flush` and the source of the hot wallet.
    function factory() external view returns (address);
}
