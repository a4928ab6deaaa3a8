// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {CommonBase} from "forge-std/Base.sol";
import {StdUtils} from "forge-std/StdUtils.sol";
import {StdInvariant} from "forge-std/StdInvariant.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {AgentPool} from "../AgentPool.sol";
import {AgentSpawner} from "../AgentSpawner.sol";
import {AgentRegistry} from "../AgentRegistry.sol";
import {MockStableToken} from "../mocks/MockStableToken.sol";
import {WrappedNative} from "../mocks/WrappedNative.sol";
import {IAgentSpawner} from "../interfaces/IAgentSpawner.sol";
import {IAgentRegistry} from "../interfaces/IAgentRegistry.sol";
import {IAgentPool} from "../interfaces/IAgentPool.sol";
import {PoolMath} from "../libraries/PoolMath.sol";
import {Ecosystem} from "./utils/EcosystemDeployer.sol";
import {EcosystemTest} from "./utils/EcosystemTest.sol";

/// @notice Drives the ecosystem the way its users do: spawns, buys, sells, liquidity and
/// transfers, by a handful of actors across every spawned token, plus an attacking creator that
/// dumps everything it holds into its own pool and a run on the pool where every other holder
/// sells out. It records what the invariants need (holders, creators, spawn count, the k each
/// pool must keep) and counts the properties it can only observe mid-call, since a failed
/// assertion here would be swallowed as a revert.
contract EcosystemHandler is CommonBase, StdUtils {
    /// @dev Few tokens keep runs short while still mixing pool sides and owners.
    uint256 public constant MAX_SPAWNS = 5;
    uint256 private constant ACTOR_COUNT = 4;
    uint256 private constant MAX_STABLE_IN = 1e9 * 1e6;
    uint256 private constant MAX_NATIVE_IN = 1e6 ether;

    AgentSpawner private immutable spawner;
    AgentRegistry private immutable registry;
    MockStableToken private immutable stable;
    WrappedNative private immutable weth;
    address private immutable relayer;

    address[] private actors;
    address[] public tokens;
    address[] public pools;
    mapping(address token => address[]) private holders;
    mapping(address token => mapping(address account => bool)) private isHolder;
    mapping(address pool => address) public creatorOf;
    /// @notice Least effective k each pool may have after the handler's latest action on it.
    mapping(address pool => uint256) public kFloor;

    uint256 public spawnCount;
    uint256 public feesPaid;
    /// @notice Spawns whose payer was not left with exactly `balance - fee` (refund mismatch).
    uint256 public refundMismatches;
    /// @notice Swaps that paid out more than the pool really held of the output asset (a buy
    /// must leave agent tokens behind; a sell may not touch the virtual pair reserve).
    uint256 public overdrawnSwaps;
    /// @notice Holders (creators excepted) whose whole balance could not be sold back to the pool
    /// for lack of real pair reserve, during a run on the pool.
    uint256 public stuckSellers;

    struct SpawnRequest {
        address owner;
        address payer;
        string symbol;
        uint256 supply;
        IAgentSpawner.PoolSide side;
        uint256 value;
    }

    constructor(Ecosystem memory eco, address relayer_) {
        (spawner, registry, stable, weth, relayer) =
            (eco.spawner, eco.registry, eco.stableToken, eco.wrappedNative, relayer_);
        for (uint256 i = 0; i < ACTOR_COUNT; ++i) {
            actors.push(vm.addr(0xA11CE + i));
        }
    }

    // ---------------------------------------------------------------- actions

    /// @dev `optionSeed` picks the pool side (bit 0), whether the relayer pays through spawnFor
    /// (bit 1) and how much is overpaid (the rest).
    function spawn(uint256 ownerSeed, uint256 symbolSeed, uint256 supplySeed, uint256 optionSeed) external {
        if (spawnCount >= MAX_SPAWNS) return;
        SpawnRequest memory req = _spawnRequest(ownerSeed, symbolSeed, supplySeed, optionSeed);
        if (spawner.isSymbolTaken(req.symbol)) return;
        // Wait out the owner's cooldown rather than skip: time moves on as in production.
        uint256 readyAt = spawner.nextSpawnAt(req.owner);
        if (readyAt != 0) vm.warp(readyAt);

        uint256 fee = spawner.spawnFee();
        vm.deal(req.payer, req.payer.balance + req.value);
        uint256 payerBefore = req.payer.balance;
        (address token, address pool) = _callSpawn(req);
        if (req.payer.balance != payerBefore - fee) ++refundMismatches;

        tokens.push(token);
        pools.push(pool);
        _addHolder(token, pool);
        _addHolder(token, req.owner);
        creatorOf[pool] = req.owner;
        kFloor[pool] = _effectiveK(AgentPool(pool));
        feesPaid += fee;
        ++spawnCount;
    }

    function buy(uint256 poolSeed, uint256 actorSeed, uint256 amountIn) external {
        if (pools.length == 0) return;
        AgentPool pool = _pool(poolSeed);
        address buyer = _actor(actorSeed);
        amountIn = bound(amountIn, 1, pool.pairAsset() == address(stable) ? MAX_STABLE_IN : MAX_NATIVE_IN);
        _fundPair(pool, buyer, amountIn);
        (uint256 reserveToken,,) = pool.getReserves();
        kFloor[address(pool)] = _effectiveK(pool);

        vm.startPrank(buyer);
        IERC20(pool.pairAsset()).approve(address(pool), amountIn);
        uint256 amountOut = pool.swapExactIn(pool.pairAsset(), amountIn, 0, buyer);
        vm.stopPrank();

        if (amountOut >= reserveToken) ++overdrawnSwaps;
        _addHolder(pool.token(), buyer);
    }

    function sell(uint256 poolSeed, uint256 actorSeed, uint256 amountIn) external {
        if (pools.length == 0) return;
        AgentPool pool = _pool(poolSeed);
        address seller = _actor(actorSeed);
        uint256 balance = IERC20(pool.token()).balanceOf(seller);
        if (balance == 0) return;
        amountIn = bound(amountIn, 1, balance);
        // A dust amount may buy nothing (ZeroOutput); retry with a sliver of the balance rather
        // than wasting the call.
        if (!_canSell(pool, amountIn)) amountIn = amountIn / 1000 + 1;
        if (!_canSell(pool, amountIn)) return;
        (, uint256 reservePair,) = pool.getReserves();
        kFloor[address(pool)] = _effectiveK(pool);

        vm.startPrank(seller);
        IERC20(pool.token()).approve(address(pool), amountIn);
        uint256 amountOut = pool.swapExactIn(pool.token(), amountIn, 0, seller);
        vm.stopPrank();

        if (amountOut > reservePair) ++overdrawnSwaps;
    }

    function addLiquidity(uint256 poolSeed, uint256 actorSeed, uint256 amountToken) external {
        if (pools.length == 0) return;
        AgentPool pool = _pool(poolSeed);
        address provider = _actor(actorSeed);
        uint256 balance = IERC20(pool.token()).balanceOf(provider);
        (uint256 reserveToken, uint256 reservePair,) = pool.getReserves();
        // Smallest deposit that mints a share; below it the pool rightly refuses.
        uint256 minAmount = Math.ceilDiv(reserveToken, pool.totalShares());
        if (balance < minAmount) return;
        amountToken = bound(amountToken, minAmount, balance);
        uint256 amountPair = PoolMath.matchingDeposit(amountToken, reserveToken, reservePair);
        if (amountPair > 0) _fundPair(pool, provider, amountPair);
        // Deposits only add to both sides: k must not fall below its value now.
        kFloor[address(pool)] = _effectiveK(pool);

        vm.startPrank(provider);
        IERC20(pool.token()).approve(address(pool), amountToken);
        IERC20(pool.pairAsset()).approve(address(pool), amountPair);
        pool.addLiquidity(amountToken, amountPair, 1, provider);
        vm.stopPrank();
    }

    function removeLiquidity(uint256 poolSeed, uint256 actorSeed, uint256 shares) external {
        if (pools.length == 0) return;
        AgentPool pool = _pool(poolSeed);
        address provider = _actor(actorSeed);
        uint256 held = pool.sharesOf(provider);
        if (held == 0) return;
        shares = bound(shares, 1, held);
        uint256 supply = pool.totalShares();
        // A withdrawal shrinks k, but never faster than the shares: k / totalShares^2 holds, less
        // the one virtual pair unit the withdrawal may round away (worth at most reserveToken of k).
        uint256 kScaled = Math.mulDiv(_effectiveK(pool), supply - shares, supply);
        (uint256 reserveToken,,) = pool.getReserves();
        uint256 floor_ = Math.mulDiv(kScaled, supply - shares, supply);
        kFloor[address(pool)] = floor_ > reserveToken ? floor_ - reserveToken : 0;

        vm.prank(provider);
        pool.removeLiquidity(shares, 0, 0, provider);
    }

    /// @notice The attack of issue 9: the creator sells everything it holds into its own pool, or
    /// as much as the real pair reserve can pay for, to take the buyers' deposits.
    function creatorDump(uint256 poolSeed) external {
        if (pools.length == 0) return;
        AgentPool pool = _pool(poolSeed);
        address creator = creatorOf[address(pool)];
        uint256 amountIn = IERC20(pool.token()).balanceOf(creator);
        // Shrink to what the real reserve can pay: halving finds a sellable amount in few steps.
        while (amountIn > 0 && !_canSell(pool, amountIn)) amountIn /= 2;
        if (amountIn == 0) return;
        kFloor[address(pool)] = _effectiveK(pool);
        vm.startPrank(creator);
        IERC20(pool.token()).approve(address(pool), amountIn);
        pool.swapExactIn(pool.token(), amountIn, 0, creator);
        vm.stopPrank();
    }

    /// @notice A run on the pool: every holder but the creator sells its whole balance, one after
    /// the other. Each must get out; only a balance too small to buy one pair unit may stay.
    function runOnPool(uint256 poolSeed) external {
        if (pools.length == 0) return;
        AgentPool pool = _pool(poolSeed);
        IERC20 token = IERC20(pool.token());
        address[] memory tokenHolders = holders[address(token)];
        kFloor[address(pool)] = _effectiveK(pool);
        for (uint256 i = 0; i < tokenHolders.length; ++i) {
            address holder = tokenHolders[i];
            if (holder == address(pool) || holder == creatorOf[address(pool)]) continue;
            uint256 balance = token.balanceOf(holder);
            if (balance == 0) continue;
            vm.startPrank(holder);
            token.approve(address(pool), balance);
            try pool.swapExactIn(address(token), balance, 0, holder) returns (uint256) {}
            catch (bytes memory reason) {
                if (bytes4(reason) != IAgentPool.ZeroOutput.selector) ++stuckSellers;
            }
            vm.stopPrank();
        }
    }

    function transfer(uint256 tokenSeed, uint256 fromSeed, uint256 toSeed, uint256 amount) external {
        if (tokens.length == 0) return;
        IERC20 token = IERC20(tokens[tokenSeed % tokens.length]);
        address from = _actor(fromSeed);
        address to = _actor(toSeed);
        uint256 balance = token.balanceOf(from);
        if (balance == 0) return;
        vm.prank(from);
        token.transfer(to, bound(amount, 1, balance));
        _addHolder(address(token), to);
    }

    // ------------------------------------------------------------------ views

    function tokenCount() external view returns (uint256) {
        return tokens.length;
    }

    function holdersOf(address token) external view returns (address[] memory) {
        return holders[token];
    }

    /// @notice Whether the real pair reserve could buy back every token outside the pool at once
    /// (the curve's debt to all holders, fee ignored, which only overstates it): selling
    /// C = supply - reserveToken tokens pays C * (P + V) / (R + C) <= P, i.e. C * V <= P * R.
    function isSolvent(address pool) external view returns (bool) {
        AgentPool p = AgentPool(pool);
        (uint256 reserveToken, uint256 reservePair, uint256 virtualPair) = p.getReserves();
        uint256 outside = IERC20(p.token()).totalSupply() - reserveToken;
        return outside * virtualPair <= reservePair * reserveToken;
    }

    function effectiveK(address pool) external view returns (uint256) {
        return _effectiveK(AgentPool(pool));
    }

    // ---------------------------------------------------------------- helpers

    function _spawnRequest(uint256 ownerSeed, uint256 symbolSeed, uint256 supplySeed, uint256 optionSeed)
        private
        view
        returns (SpawnRequest memory req)
    {
        req.owner = _actor(ownerSeed);
        req.payer = (optionSeed >> 1) & 1 == 1 ? relayer : req.owner;
        req.symbol = _symbol(symbolSeed);
        req.supply = _supply(supplySeed);
        req.side = optionSeed & 1 == 1 ? IAgentSpawner.PoolSide.WRAPPED_NATIVE : IAgentSpawner.PoolSide.STABLE;
        req.value = spawner.spawnFee() + bound(optionSeed >> 2, 0, 1 ether);
    }

    function _callSpawn(SpawnRequest memory req) private returns (address token, address pool) {
        IAgentRegistry.Metadata memory metadata = IAgentRegistry.Metadata("fuzzed", "ipfs://logo", "");
        string memory name = string.concat(req.symbol, " Agent");
        vm.prank(req.payer);
        if (req.payer == req.owner) {
            (token, pool,,) = spawner.spawn{value: req.value}(name, req.symbol, req.supply, req.side, metadata);
        } else {
            (token, pool,,) =
                spawner.spawnFor{value: req.value}(req.owner, name, req.symbol, req.supply, req.side, metadata);
        }
    }

    /// @dev A random `[A-Z]{3,5}` symbol.
    function _symbol(uint256 seed) private pure returns (string memory) {
        bytes memory symbol = new bytes(3 + (seed % 3));
        for (uint256 i = 0; i < symbol.length; ++i) {
            symbol[i] = bytes1(uint8(65 + ((seed >> (8 * (i + 1))) % 26)));
        }
        return string(symbol);
    }

    /// @dev The default supply half the time, otherwise anything the spawner accepts.
    function _supply(uint256 seed) private view returns (uint256) {
        if (seed % 2 == 0) return 0;
        return bound(seed >> 1, spawner.MIN_SUPPLY(), spawner.MAX_SUPPLY());
    }

    function _canSell(AgentPool pool, uint256 amountIn) private view returns (bool) {
        try pool.quote(pool.token(), amountIn) returns (uint256, uint256) {
            return true;
        } catch {
            return false;
        }
    }

    function _fundPair(AgentPool pool, address to, uint256 amount) private {
        if (pool.pairAsset() == address(stable)) {
            stable.mint(to, amount);
        } else {
            vm.deal(to, to.balance + amount);
            vm.prank(to);
            weth.deposit{value: amount}();
        }
    }

    function _addHolder(address token, address account) private {
        if (isHolder[token][account]) return;
        isHolder[token][account] = true;
        holders[token].push(account);
    }

    function _actor(uint256 seed) private view returns (address) {
        return actors[seed % actors.length];
    }

    function _pool(uint256 seed) private view returns (AgentPool) {
        return AgentPool(pools[seed % pools.length]);
    }

    function _effectiveK(AgentPool pool) private view returns (uint256) {
        (uint256 reserveToken, uint256 reservePair, uint256 virtualPair) = pool.getReserves();
        return reserveToken * (reservePair + virtualPair);
    }
}

contract EcosystemInvariantTest is EcosystemTest {
    EcosystemHandler private handler;
    uint256 private burnBalanceAtStart;

    function setUp() public override {
        super.setUp();
        handler = new EcosystemHandler(eco, relayer);
        burnBalanceAtStart = spawner.BURN_ADDRESS().balance;

        bytes4[] memory selectors = new bytes4[](8);
        selectors[0] = EcosystemHandler.spawn.selector;
        selectors[1] = EcosystemHandler.buy.selector;
        selectors[2] = EcosystemHandler.sell.selector;
        selectors[3] = EcosystemHandler.addLiquidity.selector;
        selectors[4] = EcosystemHandler.removeLiquidity.selector;
        selectors[5] = EcosystemHandler.transfer.selector;
        selectors[6] = EcosystemHandler.creatorDump.selector;
        selectors[7] = EcosystemHandler.runOnPool.selector;
        targetContract(address(handler));
        targetSelector(StdInvariant.FuzzSelector({addr: address(handler), selectors: selectors}));
    }

    /// @dev Tracking every address that ever held a token and finding the supply there proves
    /// no spawn, swap or liquidity path mints to, or moves tokens to, anyone unexpected.
    function invariant_HoldersAccountForTotalSupply() public view {
        for (uint256 i = 0; i < handler.tokenCount(); ++i) {
            IERC20 token = IERC20(handler.tokens(i));
            address[] memory holders = handler.holdersOf(address(token));
            uint256 sum;
            for (uint256 j = 0; j < holders.length; ++j) {
                sum += token.balanceOf(holders[j]);
            }
            assertEq(sum, token.totalSupply(), "tokens outside the tracked holders");
        }
    }

    function invariant_SpawnerNeverHoldsNative() public view {
        assertEq(address(spawner).balance, 0);
    }

    /// @dev Every fee paid is burned in full: refunds return only the excess.
    function invariant_SpawnFeesAreBurned() public view {
        assertEq(spawner.BURN_ADDRESS().balance - burnBalanceAtStart, handler.feesPaid(), "fees not burned");
        assertEq(handler.refundMismatches(), 0, "overpayment not refunded exactly");
    }

    function invariant_PoolBalancesCoverReserves() public view {
        for (uint256 i = 0; i < handler.tokenCount(); ++i) {
            AgentPool pool = AgentPool(handler.pools(i));
            (uint256 reserveToken, uint256 reservePair,) = pool.getReserves();
            assertGe(IERC20(pool.token()).balanceOf(address(pool)), reserveToken, "token balance below reserve");
            assertGe(IERC20(pool.pairAsset()).balanceOf(address(pool)), reservePair, "pair balance below reserve");
        }
        assertEq(handler.overdrawnSwaps(), 0, "a swap paid beyond the real reserve");
    }

    /// @dev The handler sets each pool's floor before acting on it (k before a swap or a deposit,
    /// k scaled by the remaining shares squared before a withdrawal); the state the action left
    /// must not fall below it.
    function invariant_EffectiveKNeverDecreases() public view {
        for (uint256 i = 0; i < handler.tokenCount(); ++i) {
            address pool = handler.pools(i);
            assertGe(handler.effectiveK(pool), handler.kFloor(pool), "effective k decreased");
        }
    }

    /// @dev Issue 9, item 2: nobody got a token for free, so whatever the creator, traders and
    /// liquidity providers did, the pool's real pair reserve covers what the curve owes every
    /// holder, and no holder but the creator was ever left unable to sell out.
    function invariant_RealReserveCoversEveryHolder() public view {
        for (uint256 i = 0; i < handler.tokenCount(); ++i) {
            assertTrue(handler.isSolvent(handler.pools(i)), "real reserve below what the curve owes holders");
        }
        assertEq(handler.stuckSellers(), 0, "a holder could not sell out");
    }

    function invariant_OneWorkerAndNftPerSpawn() public view {
        assertEq(registry.workerCount(), handler.spawnCount(), "workers != spawns");
        for (uint256 i = 0; i < handler.tokenCount(); ++i) {
            address token = handler.tokens(i);
            uint256 nftId = registry.agentOfToken(token);
            assertEq(registry.tokenOfAgent(nftId), token);
            assertEq(registry.getWorker(registry.workerOfAgent(nftId)).token, token);
        }
    }
}
