// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title Deposit forwarder factory
/// @notice Per-user counterfactual deposit addresses, as Coinbase's and BitGo's forwarders are.
/// The exchange derives a salt per user (e.g. `keccak256(userId)`) and hands out
/// `depositAddress(salt)`: the CREATE2 address of a minimal proxy to the forwarder implementation,
/// known before anything is deployed there. Users send native coin or ERC-20 tokens to it with a
/// plain transfer. `sweep` deploys the forwarder on its first call (same address) and moves the
/// whole balance of the native coin and of each listed ERC-20 to the hot wallet, with one `Swept`
/// event per asset moved. A deposit address costs nothing until its first sweep, and never holds
/// a key.
///
/// Who sweeps: the SWEEPER role. A permissionless sweep could not steal anything (a forwarder only
/// ever sends to the hot wallet and the caller pays the gas), but it would hand outsiders three
/// things the exchange has reason to keep: when a forwarder gets deployed (after which a contract
/// paying native coin with a 2,300-gas `transfer` can no longer pay that address, see
/// {IDepositForwarder}); `Swept` events for any contract an outsider lists as a token (a fake token
/// reports any balance), which every reader of the events would have to filter; and the moment a
/// deposit address's native balance drops to zero, which the exchange's reserves and native-deposit
/// accounting would race with. Sweeping has no other user than the exchange, so the role costs
/// nothing. The admin can rotate the hot wallet without changing any deposit address (the address
/// depends on the factory, the implementation and the salt only).
interface IDepositForwarderFactory {
    /// @notice `amount` of `token` (address(0): the native coin) moved from the forwarder of
    /// `salt` to the hot wallet. Emitted once per asset with a non-zero balance, native first,
    /// then the listed tokens in order.
    event Swept(bytes32 indexed salt, address indexed forwarder, address indexed token, uint256 amount);
    /// @notice The forwarder of `salt` was deployed at its predicted address (first sweep).
    event ForwarderDeployed(bytes32 indexed salt, address indexed forwarder);
    event HotWalletUpdated(address indexed previous, address indexed current);

    error InvalidAddress(address account);

    /// @notice The deposit address of `salt`, deployed or not: a pure function of this factory's
    /// address, `forwarderImplementation()` and `salt` (OpenZeppelin `Clones` CREATE2 address).
    function depositAddress(bytes32 salt) external view returns (address);

    /// @notice Whether the forwarder of `salt` has been deployed (by a first sweep).
    function isDeployed(bytes32 salt) external view returns (bool);

    /// @notice Deploys the forwarder of `salt` if it has no code yet, then moves its whole native
    /// balance and the whole balance of each ERC-20 in `tokens` to the hot wallet. SWEEPER role.
    /// Reverts with {IDepositForwarder-NotAToken} for a listed address without code.
    /// @return forwarder The deposit address swept.
    function sweep(bytes32 salt, address[] calldata tokens) external returns (address forwarder);

    /// @notice Where every sweep sends; the admin may change it (`HotWalletUpdated`).
    function hotWallet() external view returns (address);

    /// @notice The forwarder every deposit address is a minimal proxy to.
    function forwarderImplementation() external view returns (address);
}
