// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAgentSpawner} from "../interfaces/IAgentSpawner.sol";
import {EcosystemTest, Spawned} from "./utils/EcosystemTest.sol";

/// @notice Issue 9, item 2, as reproduced on the old launch (20% of supply to the creator for
/// free): a buyer paid 1,000 mUSD, the creator sold its free tokens for all of it and the buyer
/// could sell nothing. Under the launch rule nobody holds an unpaid token, so the buyer gets out.
contract LaunchFairnessTest is EcosystemTest {
    uint256 private constant DEPOSIT = 1_000e6;
    /// @dev Two 0.30% fees on the way in and out, rounded up: the buyer keeps well above 99%.
    uint256 private constant ROUND_TRIP_FLOOR = (DEPOSIT * 99) / 100;

    Spawned private alpha;

    function setUp() public override {
        super.setUp();
        alpha = _spawn(alice, "ALPHA", IAgentSpawner.PoolSide.STABLE);
    }

    function test_TheCreatorGetsNothingForFree() public view {
        assertEq(alpha.token.balanceOf(alice), 0);
        assertEq(alpha.token.balanceOf(address(alpha.pool)), alpha.token.totalSupply());
    }

    function test_BuyerGetsOutAfterTheCreatorDumpsEverythingItHolds() public {
        uint256 bought = _buy(alpha.pool, bob, DEPOSIT);
        // The creator's only way in is the curve: it pays like everyone, then dumps.
        _buy(alpha.pool, alice, DEPOSIT / 2);
        // Everything it holds, or as much of it as the real reserve can pay for.
        uint256 dump = alpha.token.balanceOf(alice);
        while (!_sellable(dump)) dump /= 2;
        uint256 creatorBack = _sell(alpha.pool, alice, dump);
        assertLe(creatorBack, DEPOSIT / 2, "the creator took more than it paid");

        uint256 buyerBack = _sell(alpha.pool, bob, bought);
        assertGe(buyerBack, ROUND_TRIP_FLOOR, "the buyer lost its deposit");
    }

    /// @dev A liquidity provider's deposit deepens the curve (real and virtual reserves grow with
    /// the shares); withdrawing it, before or after the buyers leave, takes only its own part.
    function test_ALiquidityProviderCannotDrainBuyers() public {
        uint256 bought = _buy(alpha.pool, bob, DEPOSIT);
        uint256 lpTokens = _buy(alpha.pool, carol, DEPOSIT);
        (uint256 reserveToken, uint256 reservePair,) = alpha.pool.getReserves();
        uint256 pairNeeded = (lpTokens * reservePair) / reserveToken + 1;
        _fundPair(alpha.pool, carol, pairNeeded);
        vm.startPrank(carol);
        alpha.token.approve(address(alpha.pool), lpTokens);
        stable.approve(address(alpha.pool), pairNeeded);
        (uint256 shares, uint256 pairIn) = alpha.pool.addLiquidity(lpTokens, pairNeeded, 1, carol);
        (uint256 tokenOut, uint256 pairOut) = alpha.pool.removeLiquidity(shares, 0, 0, carol);
        vm.stopPrank();
        assertLe(pairOut, pairIn, "the provider took pair asset it did not bring");
        _sell(alpha.pool, carol, tokenOut);

        uint256 buyerBack = _sell(alpha.pool, bob, bought);
        assertGe(buyerBack, ROUND_TRIP_FLOOR, "the buyer lost its deposit");
    }

    /// @dev Everything outside the pool sold at once is worth no more than the real reserve.
    function test_EveryTokenOutsideThePoolIsBackedByTheRealReserve() public {
        _buy(alpha.pool, bob, DEPOSIT);
        (uint256 reserveToken, uint256 reservePair,) = alpha.pool.getReserves();
        uint256 outside = alpha.token.totalSupply() - reserveToken;
        (uint256 amountOut,) = alpha.pool.quote(address(alpha.token), outside);
        assertLe(amountOut, reservePair);
    }

    function _sellable(uint256 amount) private view returns (bool) {
        try alpha.pool.quote(address(alpha.token), amount) returns (uint256, uint256) {
            return true;
        } catch {
            return false;
        }
    }
}
