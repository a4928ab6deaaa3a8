// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {AgentPool} from "../AgentPool.sol";
import {IAgentPool} from "../interfaces/IAgentPool.sol";
import {IAgentSpawner} from "../interfaces/IAgentSpawner.sol";
import {PoolMath} from "../libraries/PoolMath.sol";
import {EcosystemTest, Spawned} from "./utils/EcosystemTest.sol";

/// @notice Properties of real pools, spawned through the spawner with the deployment's settings
/// (0.30% fee, the whole 1e9 supply seeded, 10,000 mUSD or 5 WETH of virtual pair reserve).
contract AgentPoolTest is EcosystemTest {
    /// @dev Largest buy fuzzed per side: 10 billion mUSD, or 10 million WETH.
    uint256 private constant MAX_STABLE_IN = 1e10 * 1e6;
    uint256 private constant MAX_NATIVE_IN = 1e7 ether;
    /// @dev One base unit in is all fee (rounded up), so the smallest buy that gets anything is two.
    uint256 private constant MIN_BUY = 2;

    Spawned private stablePool;
    Spawned private nativePool;

    function setUp() public override {
        super.setUp();
        // Alice and bob own one token each; distinct owners, so no cooldown to wait out. The
        // spawn gives them nothing: each buys a stake on the curve (about 20% of the supply).
        stablePool = _spawn(alice, "ALPHA", IAgentSpawner.PoolSide.STABLE);
        nativePool = _spawn(bob, "BETA", IAgentSpawner.PoolSide.WRAPPED_NATIVE);
        _buy(stablePool.pool, alice, 2_500e6);
        _buy(nativePool.pool, bob, 1.25 ether);
    }

    // ------------------------------------------------------------------ swaps

    function testFuzz_BuyKeepsKAndPaysWithinReserves(bool native, uint256 amountIn) public {
        AgentPool pool = _pool(native);
        amountIn = bound(amountIn, MIN_BUY, _maxIn(native));
        (uint256 reserveToken, uint256 reservePair,) = pool.getReserves();
        uint256 kBefore = _effectiveK(pool);
        (uint256 quoted,) = pool.quote(pool.pairAsset(), amountIn);

        uint256 amountOut = _buy(pool, carol, amountIn);

        assertEq(amountOut, quoted, "swap paid other than quoted");
        assertLt(amountOut, reserveToken, "buy drained the token reserve");
        assertEq(IERC20(pool.token()).balanceOf(carol), amountOut, "buyer not paid");
        (uint256 newReserveToken, uint256 newReservePair,) = pool.getReserves();
        assertEq(newReserveToken, reserveToken - amountOut);
        assertEq(newReservePair, reservePair + amountIn);
        assertGe(_effectiveK(pool), kBefore, "k decreased");
        _assertBalancesCoverReserves(pool);
    }

    /// @dev The owner bought its stake, so whatever it sells, the real pair reserve can pay: no
    /// sell by a holder ever needs the virtual reserve (issue 9: under the old launch the owner's
    /// free 20% asked for more than buyers had put in). Dust buying nothing is refused.
    function testFuzz_SellPaysOnlyFromRealReserves(bool native, uint256 buyIn, uint256 sellIn) public {
        AgentPool pool = _pool(native);
        address seller = _owner(native);
        _buy(pool, carol, bound(buyIn, MIN_BUY, _maxIn(native)));
        sellIn = bound(sellIn, 1, IERC20(pool.token()).balanceOf(seller));
        (, uint256 reservePair,) = pool.getReserves();
        uint256 expectedOut = _sellQuote(pool, sellIn);
        uint256 kBefore = _effectiveK(pool);

        if (expectedOut == 0) {
            // Dust worth less than one unit of pair asset is refused rather than swallowed.
            address dustToken = pool.token();
            vm.startPrank(seller);
            IERC20(dustToken).approve(address(pool), sellIn);
            vm.expectRevert(abi.encodeWithSelector(IAgentPool.ZeroOutput.selector, sellIn));
            pool.swapExactIn(dustToken, sellIn, 0, seller);
            vm.stopPrank();
            return;
        }
        assertLe(expectedOut, reservePair, "a holder's sell needs the virtual reserve");
        uint256 amountOut = _sell(pool, seller, sellIn);

        assertEq(amountOut, expectedOut);
        assertLe(amountOut, reservePair, "paid out of the virtual reserve");
        assertEq(_pairAsset(pool).balanceOf(seller), amountOut, "seller not paid");
        assertGe(_effectiveK(pool), kBefore, "k decreased");
        _assertBalancesCoverReserves(pool);
    }

    /// @dev Buyers selling back everything they bought never take out more than they paid in:
    /// the fee and the curve keep the real pair reserve from going negative.
    function testFuzz_RoundTripNeverProfits(bool native, uint256 amountIn) public {
        AgentPool pool = _pool(native);
        amountIn = bound(amountIn, MIN_BUY, _maxIn(native));
        uint256 bought = _buy(pool, carol, amountIn);
        vm.assume(_sellQuote(pool, bought) > 0);
        uint256 received = _sell(pool, carol, bought);
        assertLt(received, amountIn, "round trip profited");
    }

    /// @dev Random buys and sells by several traders; every step keeps k, pays out within the
    /// real reserves it had and leaves the pool's balances covering its reserves.
    function testFuzz_RandomSwapSequence(bool native, uint256 seed) public {
        AgentPool pool = _pool(native);
        address[3] memory traders = [alice, carol, dave];
        for (uint256 step = 0; step < 10; ++step) {
            seed = uint256(keccak256(abi.encode(seed, step)));
            address trader = traders[seed % 3];
            bool isBuy = (seed >> 8) % 2 == 0;
            _swapStep(pool, trader, isBuy, seed >> 16, native);
        }
    }

    function _swapStep(AgentPool pool, address trader, bool isBuy, uint256 amountSeed, bool native) private {
        uint256 kBefore = _effectiveK(pool);
        bool swapped = isBuy ? _buyStep(pool, trader, amountSeed, native) : _sellStep(pool, trader, amountSeed);
        if (!swapped) return;
        assertGe(_effectiveK(pool), kBefore, "k decreased");
        _assertBalancesCoverReserves(pool);
    }

    function _buyStep(AgentPool pool, address trader, uint256 amountSeed, bool native) private returns (bool) {
        (uint256 reserveToken,,) = pool.getReserves();
        uint256 amountOut = _buy(pool, trader, bound(amountSeed, MIN_BUY, _maxIn(native) / 10));
        assertLt(amountOut, reserveToken, "buy paid beyond the token reserve");
        return true;
    }

    function _sellStep(AgentPool pool, address trader, uint256 amountSeed) private returns (bool) {
        uint256 balance = IERC20(pool.token()).balanceOf(trader);
        if (balance == 0) return false;
        uint256 amountIn = bound(amountSeed, 1, balance);
        (, uint256 reservePair,) = pool.getReserves();
        // Sells the pool cannot cover, and dust, revert (tested above); skip them to keep going.
        uint256 quoted = _sellQuote(pool, amountIn);
        if (quoted == 0 || quoted > reservePair) return false;
        uint256 amountOut = _sell(pool, trader, amountIn);
        assertLe(amountOut, reservePair, "sell paid beyond the real pair reserve");
        return true;
    }

    function test_RevertWhen_SellingIntoAFreshPool() public {
        // A fresh pool has only virtual pair reserve: it quotes a price but has nothing real to
        // pay a seller with, so both the quote and the swap refuse (before pulling any token:
        // nobody holds one yet).
        Spawned memory fresh = _spawn(dave, "GAMMA", IAgentSpawner.PoolSide.STABLE);
        AgentPool pool = fresh.pool;
        address token = address(fresh.token);
        uint256 expectedOut = _sellQuote(pool, 1e18);
        assertGt(expectedOut, 0);
        bytes memory insufficient = abi.encodeWithSelector(IAgentPool.InsufficientLiquidity.selector, expectedOut, 0);

        vm.expectRevert(insufficient);
        pool.quote(token, 1e18);

        vm.prank(alice);
        vm.expectRevert(insufficient);
        pool.swapExactIn(token, 1e18, 0, alice);
    }

    function test_RevertWhen_SwappingAnUnknownToken() public {
        address stranger = address(weth);
        vm.expectRevert(abi.encodeWithSelector(IAgentPool.UnknownToken.selector, stranger));
        stablePool.pool.swapExactIn(stranger, 1e18, 0, alice);
    }

    function test_RevertWhen_OutputBelowMinimum() public {
        AgentPool pool = stablePool.pool;
        (uint256 quoted,) = pool.quote(address(stable), 1e6);
        _fundPair(pool, carol, 1e6);
        vm.startPrank(carol);
        stable.approve(address(pool), 1e6);
        vm.expectRevert(abi.encodeWithSelector(IAgentPool.SlippageExceeded.selector, quoted, quoted + 1));
        pool.swapExactIn(address(stable), 1e6, quoted + 1, carol);
        vm.stopPrank();
    }

    function test_RevertWhen_RecipientIsThePool() public {
        AgentPool pool = stablePool.pool;
        vm.expectRevert(abi.encodeWithSelector(IAgentPool.InvalidRecipient.selector, address(pool)));
        pool.swapExactIn(address(stable), 1e6, 0, address(pool));
    }

    function test_RevertWhen_InitializingTwice() public {
        AgentPool pool = stablePool.pool;
        vm.expectRevert(IAgentPool.AlreadyInitialized.selector);
        pool.initialize(address(stablePool.token), address(stable), 3000, 1);
    }

    function test_RevertWhen_InitializingTheImplementation() public {
        vm.expectRevert(IAgentPool.AlreadyInitialized.selector);
        eco.poolImplementation.initialize(address(stablePool.token), address(stable), 3000, 1);
    }

    /// @dev Tokens sent to the pool outside a swap are not reserves and cannot be swapped out.
    function test_DonationsDoNotChangeReserves() public {
        AgentPool pool = stablePool.pool;
        (uint256 reserveToken, uint256 reservePair, uint256 virtualPair) = pool.getReserves();
        vm.prank(alice);
        stablePool.token.transfer(address(pool), 1e18);
        stable.mint(address(pool), 1e6);
        (uint256 newReserveToken, uint256 newReservePair, uint256 newVirtualPair) = pool.getReserves();
        assertEq(newReserveToken, reserveToken);
        assertEq(newReservePair, reservePair);
        assertEq(newVirtualPair, virtualPair);
        _assertBalancesCoverReserves(pool);
    }

    // -------------------------------------------------------------- liquidity

    /// @dev Optionally trade first so the pool holds real pair reserve (otherwise deposits are
    /// token-only), then add and immediately remove: the provider never profits on either side.
    function testFuzz_AddThenRemoveNeverReturnsMore(bool native, uint256 buyIn, uint256 amountToken) public {
        AgentPool pool = _pool(native);
        buyIn = bound(buyIn, 0, _maxIn(native));
        if (buyIn >= MIN_BUY) _buy(pool, carol, buyIn);
        amountToken = bound(amountToken, 1, IERC20(pool.token()).balanceOf(_owner(native)));
        _giveTokens(native, dave, amountToken);

        (uint256 shares, uint256 amountPair) = _addLiquidity(pool, dave, amountToken);
        assertEq(pool.sharesOf(dave), shares);
        _assertBalancesCoverReserves(pool);

        vm.prank(dave);
        (uint256 tokenBack, uint256 pairBack) = pool.removeLiquidity(shares, 0, 0, dave);

        assertLe(tokenBack, amountToken, "token side returned more than deposited");
        assertLe(pairBack, amountPair, "pair side returned more than deposited");
        assertEq(pool.sharesOf(dave), 0);
        assertEq(IERC20(pool.token()).balanceOf(dave), tokenBack);
        assertEq(_pairAsset(pool).balanceOf(dave), pairBack);
        _assertBalancesCoverReserves(pool);
    }

    /// @dev Depositing grows k and leaves the price where it was, up to rounding (less than two
    /// units of pair asset per deposit).
    function testFuzz_AddLiquidityKeepsPrice(bool native, uint256 buyIn, uint256 amountToken) public {
        AgentPool pool = _pool(native);
        _buy(pool, carol, bound(buyIn, MIN_BUY, _maxIn(native)));
        amountToken = bound(amountToken, 1e18, IERC20(pool.token()).balanceOf(_owner(native)));
        _giveTokens(native, dave, amountToken);
        (uint256 reserveToken, uint256 reservePair, uint256 virtualPair) = pool.getReserves();
        uint256 kBefore = _effectiveK(pool);

        _addLiquidity(pool, dave, amountToken);

        (uint256 newReserveToken, uint256 newReservePair, uint256 newVirtualPair) = pool.getReserves();
        assertGt(_effectiveK(pool), kBefore, "deposit did not grow k");
        // Price (P + V) / R, cross-multiplied. The real pair deposit is rounded up (less than one
        // unit above proportional); the virtual top-up is floored twice (shares, then virtual),
        // so it trails proportional by less than two units.
        uint256 oldValue = (reservePair + virtualPair) * newReserveToken;
        uint256 newValue = (newReservePair + newVirtualPair) * reserveToken;
        assertGt(newValue + 2 * reserveToken, oldValue, "deposit lowered the price by more than rounding");
        assertLt(newValue, oldValue + reserveToken, "deposit raised the price by more than rounding");
    }

    function test_RevertWhen_RemovingMoreSharesThanHeld() public {
        AgentPool pool = stablePool.pool;
        vm.prank(dave);
        vm.expectRevert(abi.encodeWithSelector(IAgentPool.InsufficientShareBalance.selector, 0, 1));
        pool.removeLiquidity(1, 0, 0, dave);
    }

    function test_RevertWhen_PairDepositAboveMaximum() public {
        AgentPool pool = stablePool.pool;
        _buy(pool, carol, 1_000e6);
        (uint256 reserveToken, uint256 reservePair,) = pool.getReserves();
        uint256 required = PoolMath.matchingDeposit(1e18, reserveToken, reservePair);
        assertGt(required, 0);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IAgentPool.PairAmountExceeded.selector, required, required - 1));
        pool.addLiquidity(1e18, required - 1, 0, alice);
    }

    function test_LaunchLiquidityIsLocked() public view {
        AgentPool pool = stablePool.pool;
        uint256 supply = stablePool.token.totalSupply();
        assertEq(pool.sharesOf(pool.LOCKED_SHARES_HOLDER()), supply);
        assertEq(pool.totalShares(), supply);
        assertEq(pool.sharesOf(alice), 0, "owner holds launch shares");
    }

    // ---------------------------------------------------------------- helpers

    function _pool(bool native) private view returns (AgentPool) {
        return native ? nativePool.pool : stablePool.pool;
    }

    function _owner(bool native) private view returns (address) {
        return native ? bob : alice;
    }

    function _maxIn(bool native) private pure returns (uint256) {
        return native ? MAX_NATIVE_IN : MAX_STABLE_IN;
    }

    function _giveTokens(bool native, address to, uint256 amount) private {
        Spawned memory s = native ? nativePool : stablePool;
        vm.prank(_owner(native));
        s.token.transfer(to, amount);
    }

    function _addLiquidity(AgentPool pool, address provider, uint256 amountToken)
        private
        returns (uint256 shares, uint256 amountPair)
    {
        (uint256 reserveToken, uint256 reservePair,) = pool.getReserves();
        uint256 required = PoolMath.matchingDeposit(amountToken, reserveToken, reservePair);
        if (required > 0) _fundPair(pool, provider, required);
        vm.startPrank(provider);
        IERC20(pool.token()).approve(address(pool), amountToken);
        _pairAsset(pool).approve(address(pool), required);
        (shares, amountPair) = pool.addLiquidity(amountToken, required, 0, provider);
        vm.stopPrank();
        assertEq(amountPair, required, "pair deposit differs from the matching amount");
    }

    function _sellQuote(AgentPool pool, uint256 amountIn) private view returns (uint256 amountOut) {
        (uint256 reserveToken, uint256 reservePair, uint256 virtualPair) = pool.getReserves();
        (amountOut,) = PoolMath.getAmountOut(amountIn, reserveToken, reservePair + virtualPair, pool.feePips());
    }

    function _assertBalancesCoverReserves(AgentPool pool) private view {
        (uint256 reserveToken, uint256 reservePair,) = pool.getReserves();
        assertGe(IERC20(pool.token()).balanceOf(address(pool)), reserveToken, "token balance below reserve");
        assertGe(_pairAsset(pool).balanceOf(address(pool)), reservePair, "pair balance below reserve");
    }
}
