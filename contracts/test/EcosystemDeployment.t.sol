// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {AgentSpawner} from "../AgentSpawner.sol";
import {IAgentSpawner} from "../interfaces/IAgentSpawner.sol";
import {IBooster} from "../interfaces/IBooster.sol";
import {Roles} from "./utils/EcosystemDeployer.sol";
import {EcosystemTest, Spawned} from "./utils/EcosystemTest.sol";

/// @notice Pins the Solidity deployer to scripts/lib/deploy-ecosystem.ts (settings, wiring, boost
/// tiers) and checks the spawn flow every other suite builds on.
contract EcosystemDeploymentTest is EcosystemTest {
    // --------------------------------------------------------------- deployment

    function test_SpawnerStartsWithTheScriptDefaults() public view {
        AgentSpawner.Settings memory s = spawner.settings();
        assertEq(s.spawnFee, 0.01 ether);
        assertEq(s.cooldown, 3600);
        assertEq(s.feeTier, 3000);
        assertEq(s.stableVirtualReserve, 10_000e6);
        assertEq(s.nativeVirtualReserve, 5 ether);
        assertEq(s.workerOperator, operator);
        assertEq(spawner.pairAssetOf(IAgentSpawner.PoolSide.STABLE), address(stable));
        assertEq(spawner.pairAssetOf(IAgentSpawner.PoolSide.WRAPPED_NATIVE), address(weth));
        (address tokenImpl, address poolImpl) = spawner.implementations();
        assertEq(tokenImpl, address(eco.tokenImplementation));
        assertEq(poolImpl, address(eco.poolImplementation));
        assertEq(address(spawner.registry()), address(registry));
        assertEq(address(actionLog.registry()), address(registry));
    }

    function test_VotingStartsWithTheScriptDefaults() public view {
        (uint64 votingDelay, uint64 votingPeriod, uint16 quorumBps, uint16 passingThresholdBps) = voting.settings();
        assertEq(votingDelay, 1 days);
        assertEq(votingPeriod, 3 days);
        assertEq(quorumBps, 400);
        assertEq(passingThresholdBps, 5000);
    }

    function test_RolesAreWiredAsTheScriptWiresThem() public view {
        assertTrue(registry.hasRole(Roles.DEFAULT_ADMIN, admin));
        assertTrue(registry.hasRole(Roles.REGISTRAR, address(spawner)));
        assertTrue(registry.hasRole(Roles.ACTIVITY, address(actionLog)));
        assertTrue(registry.hasRole(Roles.OVERRIDE, address(actionLog)));
        assertTrue(registry.hasRole(Roles.CONFIG, address(voting)));
        assertTrue(registry.hasRole(Roles.CONFIG, admin));
        assertTrue(registry.hasRole(Roles.MANAGER, admin));
        assertTrue(registry.hasRole(Roles.RELAYER, relayer));
        assertTrue(spawner.hasRole(Roles.DEFAULT_ADMIN, admin));
        assertTrue(spawner.hasRole(Roles.RELAYER, relayer));
        assertTrue(voting.hasRole(Roles.DEFAULT_ADMIN, admin));
        assertTrue(voting.hasRole(Roles.RELAYER, relayer));
        assertTrue(voting.hasRole(Roles.PROPOSER, relayer));
        assertTrue(booster.hasRole(Roles.DEFAULT_ADMIN, admin));
        assertEq(booster.treasury(), treasury);
        assertTrue(depositFactory.hasRole(Roles.DEFAULT_ADMIN, admin));
        assertTrue(depositFactory.hasRole(Roles.SWEEPER, sweeper));
        assertEq(depositFactory.hotWallet(), hotWallet);
        // The role ids the script hashes are the contracts' own.
        assertEq(Roles.REGISTRAR, registry.REGISTRAR_ROLE());
        assertEq(Roles.OVERRIDE, registry.OVERRIDE_ROLE());
        assertEq(Roles.RELAYER, spawner.RELAYER_ROLE());
        assertEq(Roles.RELAYER, registry.RELAYER_ROLE());
        assertEq(Roles.PROPOSER, voting.PROPOSER_ROLE());
        assertEq(Roles.SWEEPER, depositFactory.SWEEPER_ROLE());
    }

    /// @dev Nothing beyond the script's grants: the deploying test contract and the users hold no role.
    function test_NoRoleLeaksToOtherAccounts() public view {
        address[4] memory outsiders = [address(this), alice, operator, hotWallet];
        for (uint256 i = 0; i < outsiders.length; ++i) {
            assertFalse(registry.hasRole(Roles.DEFAULT_ADMIN, outsiders[i]));
            assertFalse(registry.hasRole(Roles.MANAGER, outsiders[i]));
            assertFalse(registry.hasRole(Roles.OVERRIDE, outsiders[i]));
            assertFalse(spawner.hasRole(Roles.RELAYER, outsiders[i]));
            assertFalse(registry.hasRole(Roles.RELAYER, outsiders[i]));
            assertFalse(voting.hasRole(Roles.PROPOSER, outsiders[i]));
            assertFalse(depositFactory.hasRole(Roles.SWEEPER, outsiders[i]));
            assertFalse(depositFactory.hasRole(Roles.DEFAULT_ADMIN, outsiders[i]));
        }
    }

    function test_BoostTiersAreConfigured() public view {
        _assertTier(1, 0.01 ether, 1 days);
        _assertTier(2, 0.05 ether, 3 days);
        _assertTier(3, 0.1 ether, 7 days);
        assertFalse(booster.tierConfig(4).enabled);
    }

    // --------------------------------------------------------------- spawning

    /// @dev Same launch state as test/contracts/smoke.test.ts asserts for the TypeScript deployment.
    function test_SpawnSeedsTheWholeSupplyIntoThePool() public {
        Spawned memory s = _spawn(alice, "ALPHA", IAgentSpawner.PoolSide.STABLE);
        assertEq(s.token.totalSupply(), 1e9 ether);
        assertEq(s.token.balanceOf(alice), 0, "the creator got tokens for free");
        assertEq(s.token.balanceOf(address(s.pool)), 1e9 ether);
        assertEq(registry.ownerOf(s.nftId), alice);
        assertEq(registry.getWorker(s.workerId).operator, operator);
        (uint256 reserveToken, uint256 reservePair, uint256 virtualPair) = s.pool.getReserves();
        assertEq(reserveToken, 1e9 ether);
        assertEq(reservePair, 0);
        assertEq(virtualPair, 10_000e6);
        // The pool's tokens are liquidity, never votes; what the owner buys is.
        assertEq(s.token.delegates(address(s.pool)), address(0));
        uint256 bought = _buy(s.pool, alice, 1_000e6);
        assertEq(s.token.getVotes(alice), bought);
    }

    function testFuzz_SpawnBurnsTheFeeAndRefundsTheRest(uint256 overpay) public {
        overpay = bound(overpay, 0, 100 ether);
        uint256 fee = spawner.spawnFee();
        uint256 burnedBefore = spawner.BURN_ADDRESS().balance;
        vm.deal(alice, fee + overpay);
        vm.prank(alice);
        spawner.spawn{value: fee + overpay}("Alpha", "ALPHA", 0, IAgentSpawner.PoolSide.STABLE, _emptyMetadata());
        assertEq(alice.balance, overpay, "excess not refunded");
        assertEq(spawner.BURN_ADDRESS().balance - burnedBefore, fee, "fee not burned");
        assertEq(address(spawner).balance, 0);
    }

    /// @dev The relayer pays and gets the change; the owner gets the token and the cooldown.
    function test_SpawnForRefundsTheRelayer() public {
        uint256 fee = spawner.spawnFee();
        vm.deal(relayer, 1 ether);
        vm.prank(relayer);
        (address token,,,) =
            spawner.spawnFor{value: 1 ether}(bob, "Beta", "BETA", 0, IAgentSpawner.PoolSide.STABLE, _emptyMetadata());
        assertEq(relayer.balance, 1 ether - fee);
        assertEq(registry.ownerOf(registry.agentOfToken(token)), bob);
        assertEq(spawner.nextSpawnAt(bob), block.timestamp + 3600);
        assertEq(spawner.nextSpawnAt(relayer), 0);
    }

    function test_RevertWhen_SpawnForByANonRelayer() public {
        vm.deal(alice, 1 ether);
        vm.prank(alice);
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, alice, Roles.RELAYER)
        );
        spawner.spawnFor{value: 1 ether}(bob, "Beta", "BETA", 0, IAgentSpawner.PoolSide.STABLE, _emptyMetadata());
    }

    function test_RevertWhen_SpawningDuringTheCooldown() public {
        _spawn(alice, "ALPHA", IAgentSpawner.PoolSide.STABLE);
        uint256 readyAt = block.timestamp + 3600;
        vm.warp(readyAt - 1);
        vm.deal(alice, 1 ether);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IAgentSpawner.CooldownActive.selector, alice, readyAt));
        spawner.spawn{value: 0.01 ether}("Beta", "BETA", 0, IAgentSpawner.PoolSide.STABLE, _emptyMetadata());

        vm.warp(readyAt);
        _spawn(alice, "BETA", IAgentSpawner.PoolSide.WRAPPED_NATIVE);
        assertEq(registry.workerCount(), 2);
    }

    function test_RevertWhen_SymbolIsTaken() public {
        _spawn(alice, "ALPHA", IAgentSpawner.PoolSide.STABLE);
        vm.deal(bob, 1 ether);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IAgentSpawner.SymbolTaken.selector, "ALPHA"));
        spawner.spawn{value: 0.01 ether}("Other", "ALPHA", 0, IAgentSpawner.PoolSide.WRAPPED_NATIVE, _emptyMetadata());
    }

    function test_RevertWhen_SymbolIsInvalid() public {
        vm.deal(bob, 1 ether);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IAgentSpawner.InvalidSymbol.selector, "Alpha"));
        spawner.spawn{value: 0.01 ether}("Alpha", "Alpha", 0, IAgentSpawner.PoolSide.STABLE, _emptyMetadata());
    }

    function test_RevertWhen_FeeIsShort() public {
        vm.deal(bob, 1 ether);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IAgentSpawner.InsufficientFee.selector, 0.01 ether - 1, 0.01 ether));
        spawner.spawn{value: 0.01 ether - 1}("Alpha", "ALPHA", 0, IAgentSpawner.PoolSide.STABLE, _emptyMetadata());
    }

    function _assertTier(uint8 tier, uint256 price, uint64 duration) private view {
        IBooster.TierConfig memory config = booster.tierConfig(tier);
        assertEq(config.price, price);
        assertEq(config.duration, duration);
        assertTrue(config.enabled);
    }
}
