// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAgentRegistry} from "./IAgentRegistry.sol";

/// @title Agent spawner
/// @notice Creates an agent token, its pool, its agent NFT and its worker in one transaction.
/// The spawn fee is paid in the native token and burned in full (sent to an address nobody
/// controls; the spawner has no withdraw path and never keeps a balance). Overpayment is refunded.
/// Launch rule: the whole supply is seeded into the pool's curve and nobody, the creator included,
/// receives a token for free. A creator who wants a stake buys on the curve like everyone else,
/// so the pool's real pair reserve always covers what the curve owes every holder.
interface IAgentSpawner {
    enum PoolSide {
        STABLE,
        WRAPPED_NATIVE
    }

    /// @notice Everything an indexer needs about a spawn, so it never needs an extra RPC call.
    /// `poolSupply` always equals `totalSupply`: the pool holds the whole supply as locked liquidity.
    event AgentSpawned(
        address indexed token,
        address indexed owner,
        address indexed pool,
        uint256 nftId,
        uint256 workerId,
        string name,
        string symbol,
        uint256 totalSupply,
        uint256 poolSupply,
        PoolSide poolSide,
        address pairAsset,
        uint24 feeTier,
        uint256 virtualPairReserve,
        IAgentRegistry.Metadata metadata,
        uint256 feeBurned
    );
    event SpawnFeeUpdated(uint256 previous, uint256 current);
    event CooldownUpdated(uint64 previous, uint64 current);
    event FeeTierUpdated(uint24 previous, uint24 current);
    event VirtualReserveUpdated(PoolSide indexed side, uint256 previous, uint256 current);
    event WorkerOperatorUpdated(address indexed previous, address indexed current);

    error InvalidName(string name);
    error InvalidSymbol(string symbol);
    error SymbolTaken(string symbol);
    error CooldownActive(address owner, uint256 readyAt);
    error InsufficientFee(uint256 sent, uint256 required);
    error InvalidSupply(uint256 totalSupply);
    error InvalidFeeTier(uint24 feeTier);
    error InvalidAddress(address account);
    error InvalidVirtualReserve(uint256 amount);

    /// @notice Spawns an agent token owned by the caller.
    /// @param totalSupply In base units (18 decimals); 0 means the default of 1,000,000,000 tokens.
    function spawn(
        string calldata name,
        string calldata symbol,
        uint256 totalSupply,
        PoolSide poolSide,
        IAgentRegistry.Metadata calldata metadata
    ) external payable returns (address token, address pool, uint256 nftId, uint256 workerId);

    /// @notice Spawns an agent token owned by `owner`; relayer role only (the API's signed spawns).
    /// The cooldown applies to `owner`; the fee comes from the relayer's `msg.value`.
    function spawnFor(
        address owner,
        string calldata name,
        string calldata symbol,
        uint256 totalSupply,
        PoolSide poolSide,
        IAgentRegistry.Metadata calldata metadata
    ) external payable returns (address token, address pool, uint256 nftId, uint256 workerId);

    function spawnFee() external view returns (uint256);

    function cooldown() external view returns (uint64);

    function feeTier() external view returns (uint24);

    /// @notice When `owner` may spawn again (0 if now).
    function nextSpawnAt(address owner) external view returns (uint256);

    function isSymbolTaken(string calldata symbol) external view returns (bool);

    function pairAssetOf(PoolSide side) external view returns (address);
}
