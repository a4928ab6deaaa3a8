// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {IActionLog} from "../interfaces/IActionLog.sol";
import {IAgentRegistry} from "../interfaces/IAgentRegistry.sol";
import {IAgentSpawner} from "../interfaces/IAgentSpawner.sol";
import {EcosystemTest, Spawned} from "./utils/EcosystemTest.sol";

/// @notice Issue 28, "bring your own agent": a token's owner hands its worker to an agent of its
/// own and back, directly or through the relayer; nobody else may, and the operator that acts for
/// the worker is always exactly the one the registry names.
contract WorkerOperatorHandoverTest is EcosystemTest {
    Spawned private alpha;
    Spawned private beta;
    address private ownAgent;
    address private stranger;

    function setUp() public override {
        super.setUp();
        alpha = _spawn(alice, "ALPHA", IAgentSpawner.PoolSide.STABLE);
        beta = _spawn(bob, "BETA", IAgentSpawner.PoolSide.WRAPPED_NATIVE);
        ownAgent = makeAddr("ownAgent");
        stranger = makeAddr("stranger");
    }

    function test_TheOwnerHandsTheWorkerToItsAgentWhichThenActsForIt() public {
        vm.expectEmit(address(registry));
        emit IAgentRegistry.WorkerOperatorChanged(alpha.workerId, operator, ownAgent);
        vm.prank(alice);
        registry.setWorkerOperator(alpha.workerId, ownAgent);
        assertEq(registry.getWorker(alpha.workerId).operator, ownAgent);

        vm.expectEmit(address(actionLog));
        emit IActionLog.ActionRecorded(
            actionLog.entryCount() + 1,
            alpha.nftId,
            IAgentRegistry.Tier.Worker,
            alpha.workerId,
            ownAgent,
            "trade",
            "",
            "OWN",
            false
        );
        vm.prank(ownAgent);
        actionLog.record(alpha.nftId, "trade", "", "OWN");

        // The reference operator no longer acts for it, and the new one only for this token.
        _expectUnauthorized(operator, alpha.nftId);
        _expectUnauthorized(ownAgent, beta.nftId);
    }

    function test_TheOwnerHandsTheWorkerBack() public {
        vm.startPrank(alice);
        registry.setWorkerOperator(alpha.workerId, ownAgent);
        vm.expectEmit(address(registry));
        emit IAgentRegistry.WorkerOperatorChanged(alpha.workerId, ownAgent, operator);
        registry.setWorkerOperator(alpha.workerId, operator);
        vm.stopPrank();

        _expectUnauthorized(ownAgent, alpha.nftId);
        vm.prank(operator);
        actionLog.record(alpha.nftId, "trade", "", "");
        assertEq(registry.getWorker(alpha.workerId).operator, operator);
    }

    function test_TheNftsCurrentOwnerDecidesNotItsCreator() public {
        vm.prank(alice);
        registry.transferFrom(alice, carol, alpha.nftId);

        vm.expectRevert(abi.encodeWithSelector(IAgentRegistry.NotAgentOwner.selector, alpha.nftId, alice));
        vm.prank(alice);
        registry.setWorkerOperator(alpha.workerId, ownAgent);

        vm.prank(carol);
        registry.setWorkerOperator(alpha.workerId, ownAgent);
        assertEq(registry.getWorker(alpha.workerId).operator, ownAgent);
    }

    function test_RevertWhen_AStrangerOrAnotherOwnerSetsTheOperator() public {
        vm.expectRevert(abi.encodeWithSelector(IAgentRegistry.NotAgentOwner.selector, alpha.nftId, stranger));
        vm.prank(stranger);
        registry.setWorkerOperator(alpha.workerId, stranger);

        // Owning one token's NFT gives nothing over another token's worker.
        vm.expectRevert(abi.encodeWithSelector(IAgentRegistry.NotAgentOwner.selector, alpha.nftId, bob));
        vm.prank(bob);
        registry.setWorkerOperator(alpha.workerId, bob);

        // The worker's own operator does not own it either.
        vm.expectRevert(abi.encodeWithSelector(IAgentRegistry.NotAgentOwner.selector, alpha.nftId, operator));
        vm.prank(operator);
        registry.setWorkerOperator(alpha.workerId, stranger);
        assertEq(registry.getWorker(alpha.workerId).operator, operator);
    }

    function test_RevertWhen_TheOwnerNamesAQueenOrScoutOperatorOrNobody() public {
        address scoutOperator = makeAddr("scoutOperator");
        vm.prank(admin);
        uint256 scoutId = registry.registerAgent(IAgentRegistry.Tier.Scout, scoutOperator, admin);

        vm.startPrank(alice);
        vm.expectRevert(abi.encodeWithSelector(IAgentRegistry.OperatorInUse.selector, scoutOperator, scoutId));
        registry.setWorkerOperator(alpha.workerId, scoutOperator);
        vm.expectRevert(abi.encodeWithSelector(IAgentRegistry.InvalidAddress.selector, address(0)));
        registry.setWorkerOperator(alpha.workerId, address(0));
        vm.stopPrank();
    }

    function test_RevertWhen_TheWorkerIsUnknown() public {
        vm.expectRevert(abi.encodeWithSelector(IAgentRegistry.UnknownWorker.selector, 99));
        vm.prank(alice);
        registry.setWorkerOperator(99, ownAgent);
    }

    function test_AManagerStillSetsAnyWorkersOperator() public {
        vm.prank(admin);
        registry.setWorkerOperator(alpha.workerId, ownAgent);
        assertEq(registry.getWorker(alpha.workerId).operator, ownAgent);
    }

    function test_TheRelayerSetsTheOperatorForTheOwner() public {
        vm.expectEmit(address(registry));
        emit IAgentRegistry.WorkerOperatorChanged(alpha.workerId, operator, ownAgent);
        vm.prank(relayer);
        registry.setWorkerOperatorFor(alice, alpha.workerId, ownAgent);
        assertEq(registry.getWorker(alpha.workerId).operator, ownAgent);
    }

    function test_RevertWhen_TheRelayerNamesSomeoneWhoIsNotTheOwner() public {
        vm.expectRevert(abi.encodeWithSelector(IAgentRegistry.NotAgentOwner.selector, alpha.nftId, bob));
        vm.prank(relayer);
        registry.setWorkerOperatorFor(bob, alpha.workerId, ownAgent);
    }

    function test_RevertWhen_AnyoneButTheRelayerRelays() public {
        // Even the owner: the relayed path trusts the relayer's authentication, nobody else's.
        vm.expectRevert(
            abi.encodeWithSelector(
                IAccessControl.AccessControlUnauthorizedAccount.selector, alice, registry.RELAYER_ROLE()
            )
        );
        vm.prank(alice);
        registry.setWorkerOperatorFor(alice, alpha.workerId, ownAgent);
    }

    /// @dev Handing workers around keeps each address's worker count exact: an operator that gave
    /// away every worker may become a scout's, one still running a worker may not.
    function test_HandoversKeepTheOperatorsWorkerCount() public {
        vm.prank(alice);
        registry.setWorkerOperator(alpha.workerId, ownAgent);
        vm.prank(bob);
        registry.setWorkerOperator(beta.workerId, ownAgent);
        vm.prank(alice);
        registry.setWorkerOperator(alpha.workerId, operator);

        vm.expectRevert(abi.encodeWithSelector(IAgentRegistry.OperatorRunsWorkers.selector, ownAgent));
        vm.prank(admin);
        registry.registerAgent(IAgentRegistry.Tier.Scout, ownAgent, admin);

        vm.prank(bob);
        registry.setWorkerOperator(beta.workerId, operator);
        vm.prank(admin);
        registry.registerAgent(IAgentRegistry.Tier.Scout, ownAgent, admin);
    }

    function _expectUnauthorized(address caller, uint256 target) private {
        vm.expectRevert(abi.encodeWithSelector(IActionLog.UnauthorizedAgent.selector, caller, target));
        vm.prank(caller);
        actionLog.record(target, "trade", "", "");
    }
}
