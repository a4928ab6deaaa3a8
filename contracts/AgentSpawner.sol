// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {IAgentSpawner} from "./interfaces/IAgentSpawner.sol";
import {IAgentRegistry} from "./interfaces/IAgentRegistry.sol";
import {IAgentToken} from "./interfaces/IAgentToken.sol";
import {IAgentPool} from "./interfaces/IAgentPool.sol";
import {AgentNames} from "./libraries/AgentNames.sol";

/// @title Agent spawner
/// @notice See {IAgentSpawner}. Tokens and pools are minimal-proxy clones of one implementation each.
contract AgentSpawner is IAgentSpawner, AccessControl, ReentrancyGuard {
    bytes32 public constant RELAYER_ROLE = keccak256("RELAYER_ROLE");

    /// @notice Where burned fees go: an address with no known key and no code.
    address public constant BURN_ADDRESS = 0x000000000000000000000000000000000000dEaD;
    uint256 public constant DEFAULT_SUPPLY = 1_000_000_000 ether;
    uint256 public constant MIN_SUPPLY = 1 ether;
    /// @dev Keeps reserve products of the pool math far below 2^256.
    uint256 public constant MAX_SUPPLY = 1e12 ether;
    uint16 private constant DEFAULT_SLIPPAGE_CAP_BPS = 100;

    IAgentRegistry private immutable _registry;
    address private immutable _tokenImplementation;
    address private immutable _poolImplementation;
    address private immutable _stableToken;
    address private immutable _wrappedNative;

    uint256 private _spawnFee;
    uint64 private _cooldown;
    uint24 private _feeTier;
    address private _workerOperator;
    mapping(PoolSide side => uint256) private _virtualReserve;
    mapping(bytes32 symbolHash => bool) private _symbolTaken;
    mapping(address owner => uint256) private _lastSpawnAt;

    /// @notice Deployment wiring; economic settings start at the given values and are admin-tunable.
    struct Settings {
        uint256 spawnFee;
        uint64 cooldown;
        uint24 feeTier;
        uint256 stableVirtualReserve;
        uint256 nativeVirtualReserve;
        address workerOperator;
    }

    constructor(
        IAgentRegistry registry_,
        address tokenImplementation_,
        address poolImplementation_,
        address stableToken_,
        address wrappedNative_,
        address admin,
        Settings memory initial
    ) {
        _requireNonZero(address(registry_));
        _requireNonZero(tokenImplementation_);
        _requireNonZero(poolImplementation_);
        _requireNonZero(stableToken_);
        _requireNonZero(wrappedNative_);
        _requireNonZero(admin);
        _registry = registry_;
        _tokenImplementation = tokenImplementation_;
        _poolImplementation = poolImplementation_;
        _stableToken = stableToken_;
        _wrappedNative = wrappedNative_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _setSpawnFee(initial.spawnFee);
        _setCooldown(initial.cooldown);
        _setFeeTier(initial.feeTier);
        _setVirtualReserve(PoolSide.STABLE, initial.stableVirtualReserve);
        _setVirtualReserve(PoolSide.WRAPPED_NATIVE, initial.nativeVirtualReserve);
        _setWorkerOperator(initial.workerOperator);
    }

    /// @inheritdoc IAgentSpawner
    function spawn(
        string calldata name,
        string calldata symbol,
        uint256 totalSupply,
        PoolSide poolSide,
        IAgentRegistry.Metadata calldata metadata
    ) external payable nonReentrant returns (address, address, uint256, uint256) {
        return _spawn(msg.sender, name, symbol, totalSupply, poolSide, metadata);
    }

    /// @inheritdoc IAgentSpawner
    function spawnFor(
        address owner,
        string calldata name,
        string calldata symbol,
        uint256 totalSupply,
        PoolSide poolSide,
        IAgentRegistry.Metadata calldata metadata
    ) external payable nonReentrant onlyRole(RELAYER_ROLE) returns (address, address, uint256, uint256) {
        _requireNonZero(owner);
        return _spawn(owner, name, symbol, totalSupply, poolSide, metadata);
    }

    function setSpawnFee(uint256 fee) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setSpawnFee(fee);
    }

    function setCooldown(uint64 cooldown_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setCooldown(cooldown_);
    }

    /// @notice Fee tier (pips) of pools spawned from now on: 500, 3000 or 10000.
    function setFeeTier(uint24 feeTier_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setFeeTier(feeTier_);
    }

    /// @notice Virtual pair-asset reserve new pools of `side` start with (sets the launch price).
    function setVirtualReserve(PoolSide side, uint256 amount) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setVirtualReserve(side, amount);
    }

    /// @notice Operator address assigned to the workers of new spawns (the agent runtime).
    function setWorkerOperator(address operator) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setWorkerOperator(operator);
    }

    /// @inheritdoc IAgentSpawner
    function spawnFee() external view returns (uint256) {
        return _spawnFee;
    }

    /// @inheritdoc IAgentSpawner
    function cooldown() external view returns (uint64) {
        return _cooldown;
    }

    /// @inheritdoc IAgentSpawner
    function feeTier() external view returns (uint24) {
        return _feeTier;
    }

    /// @inheritdoc IAgentSpawner
    function nextSpawnAt(address owner) public view returns (uint256) {
        uint256 last = _lastSpawnAt[owner];
        if (last == 0) return 0;
        uint256 readyAt = last + _cooldown;
        return readyAt > block.timestamp ? readyAt : 0;
    }

    /// @inheritdoc IAgentSpawner
    function isSymbolTaken(string calldata symbol) external view returns (bool) {
        return _symbolTaken[keccak256(bytes(symbol))];
    }

    /// @inheritdoc IAgentSpawner
    function pairAssetOf(PoolSide side) public view returns (address) {
        return side == PoolSide.STABLE ? _stableToken : _wrappedNative;
    }

    /// @notice Current economic settings and wiring.
    function settings() external view returns (Settings memory) {
        return Settings({
            spawnFee: _spawnFee,
            cooldown: _cooldown,
            feeTier: _feeTier,
            stableVirtualReserve: _virtualReserve[PoolSide.STABLE],
            nativeVirtualReserve: _virtualReserve[PoolSide.WRAPPED_NATIVE],
            workerOperator: _workerOperator
        });
    }

    function registry() external view returns (IAgentRegistry) {
        return _registry;
    }

    function implementations() external view returns (address token, address pool) {
        return (_tokenImplementation, _poolImplementation);
    }

    /// @dev Everything a spawn emits, in memory: more values than one stack frame can address.
    struct Spawned {
        address token;
        address owner;
        address pool;
        uint256 nftId;
        uint256 workerId;
        string name;
        string symbol;
        uint256 totalSupply;
        uint256 poolSupply;
        PoolSide poolSide;
        address pairAsset;
        uint24 feeTier;
        uint256 virtualPairReserve;
        IAgentRegistry.Metadata metadata;
        uint256 fee;
    }

    function _spawn(
        address owner,
        string calldata name,
        string calldata symbol,
        uint256 totalSupply,
        PoolSide poolSide,
        IAgentRegistry.Metadata calldata metadata
    ) private returns (address, address, uint256, uint256) {
        Spawned memory s;
        s.totalSupply = _checkSpawn(owner, name, symbol, totalSupply);
        _symbolTaken[keccak256(bytes(symbol))] = true;
        _lastSpawnAt[owner] = block.timestamp;

        (s.owner, s.name, s.symbol, s.poolSide, s.metadata) = (owner, name, symbol, poolSide, metadata);
        (s.pairAsset, s.feeTier, s.virtualPairReserve, s.fee) =
            (pairAssetOf(poolSide), _feeTier, _virtualReserve[poolSide], _spawnFee);
        // The whole supply goes into the curve: nobody, creator included, gets a token that was
        // not paid for, so every token outside the pool is backed by pair asset paid into it.
        s.poolSupply = s.totalSupply;
        _createTokenAndPool(s);
        s.nftId = _registry.registerAgentToken(owner, s.token, metadata);
        s.workerId = _registry.createWorker(s.nftId, _workerOperator, _defaultWorkerConfig());
        _emitSpawned(s);
        _settleFee(s.fee);
        return (s.token, s.pool, s.nftId, s.workerId);
    }

    function _emitSpawned(Spawned memory s) private {
        emit AgentSpawned(
            s.token,
            s.owner,
            s.pool,
            s.nftId,
            s.workerId,
            s.name,
            s.symbol,
            s.totalSupply,
            s.poolSupply,
            s.poolSide,
            s.pairAsset,
            s.feeTier,
            s.virtualPairReserve,
            s.metadata,
            s.fee
        );
    }

    function _checkSpawn(address owner, string calldata name, string calldata symbol, uint256 totalSupply)
        private
        view
        returns (uint256)
    {
        if (!AgentNames.isValidName(name)) revert InvalidName(name);
        if (!AgentNames.isValidSymbol(symbol)) revert InvalidSymbol(symbol);
        if (_symbolTaken[keccak256(bytes(symbol))]) revert SymbolTaken(symbol);
        uint256 readyAt = nextSpawnAt(owner);
        if (readyAt != 0) revert CooldownActive(owner, readyAt);
        if (msg.value < _spawnFee) revert InsufficientFee(msg.value, _spawnFee);
        if (totalSupply == 0) return DEFAULT_SUPPLY;
        if (totalSupply < MIN_SUPPLY || totalSupply > MAX_SUPPLY) revert InvalidSupply(totalSupply);
        return totalSupply;
    }

    function _createTokenAndPool(Spawned memory s) private {
        s.token = Clones.clone(_tokenImplementation);
        s.pool = Clones.clone(_poolImplementation);
        address[] memory recipients = new address[](1);
        uint256[] memory amounts = new uint256[](1);
        (recipients[0], amounts[0]) = (s.pool, s.poolSupply);
        IAgentToken(s.token).initialize(s.name, s.symbol, s.pool, recipients, amounts);
        IAgentPool(s.pool).initialize(s.token, s.pairAsset, s.feeTier, s.virtualPairReserve);
    }

    function _defaultWorkerConfig() private pure returns (IAgentRegistry.WorkerConfig memory config) {
        config.slippageCapBps = DEFAULT_SLIPPAGE_CAP_BPS;
        config.mevProtection = IAgentRegistry.MevProtection.PrivateRelay;
        config.signalSubscriptions = new string[](1);
        config.signalSubscriptions[0] = "price";
    }

    /// @dev Burns the fee and refunds any excess, so the spawner ends every spawn with no balance.
    function _settleFee(uint256 fee) private {
        if (fee > 0) Address.sendValue(payable(BURN_ADDRESS), fee);
        uint256 excess = msg.value - fee;
        if (excess > 0) Address.sendValue(payable(msg.sender), excess);
    }

    function _requireNonZero(address account) private pure {
        if (account == address(0)) revert InvalidAddress(account);
    }

    function _setSpawnFee(uint256 fee) private {
        uint256 previous = _spawnFee;
        _spawnFee = fee;
        emit SpawnFeeUpdated(previous, fee);
    }

    function _setCooldown(uint64 cooldown_) private {
        uint64 previous = _cooldown;
        _cooldown = cooldown_;
        emit CooldownUpdated(previous, cooldown_);
    }

    function _setFeeTier(uint24 feeTier_) private {
        if (feeTier_ != 500 && feeTier_ != 3000 && feeTier_ != 10_000) revert InvalidFeeTier(feeTier_);
        uint24 previous = _feeTier;
        _feeTier = feeTier_;
        emit FeeTierUpdated(previous, feeTier_);
    }

    function _setVirtualReserve(PoolSide side, uint256 amount) private {
        if (amount == 0 || amount > MAX_SUPPLY) revert InvalidVirtualReserve(amount);
        uint256 previous = _virtualReserve[side];
        _virtualReserve[side] = amount;
        emit VirtualReserveUpdated(side, previous, amount);
    }

    function _setWorkerOperator(address operator) private {
        _requireNonZero(operator);
        address previous = _workerOperator;
        _workerOperator = operator;
        emit WorkerOperatorUpdated(previous, operator);
    }
}
