// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {IAgentSpawner} from "../interfaces/IAgentSpawner.sol";
import {IAgentRegistry} from "../interfaces/IAgentRegistry.sol";
import {IActionLog} from "../interfaces/IActionLog.sol";
import {EcosystemTest, Spawned} from "./utils/EcosystemTest.sol";
import {Roles} from "./utils/EcosystemDeployer.sol";

/// @notice Issue 24, finding 2: an override changed nothing. Now it suspends its target through
/// the registry in the same transaction, by the tier rules (queen over scouts and workers, a
/// scout over workers, a worker over nobody), until resumed or until its cool-off ends.
contract OverridesTest is EcosystemTest {
    using Tiers for IAgentRegistry.Tier;

    address private queenOperator;
    address private scoutOperator;
    address private otherScoutOperator;
    address private betaOperator;
    address private stranger;
    uint256 private queenId;
    uint256 private scoutId;
    uint256 private otherScoutId;
    Spawned private alpha;
    Spawned private beta;

    function setUp() public override {
        super.setUp();
        queenOperator = makeAddr("queenOperator");
        scoutOperator = makeAddr("scoutOperator");
        otherScoutOperator = makeAddr("otherScoutOperator");
        betaOperator = makeAddr("betaOperator");
        stranger = makeAddr("stranger");
        alpha = _spawn(alice, "ALPHA", IAgentSpawner.PoolSide.STABLE);
        beta = _spawn(bob, "BETA", IAgentSpawner.PoolSide.WRAPPED_NATIVE);
        vm.startPrank(admin);
        queenId = registry.registerAgent(IAgentRegistry.Tier.Queen, queenOperator, admin);
        scoutId = registry.registerAgent(IAgentRegistry.Tier.Scout, scoutOperator, admin);
        otherScoutId = registry.registerAgent(IAgentRegistry.Tier.Scout, otherScoutOperator, admin);
        registry.setWorkerOperator(beta.workerId, betaOperator);
        vm.stopPrank();
    }

    // ---------------------------------------------------------------- workers

    function test_AQueenOverrideSuspendsTheWorkerInTheSameTransaction() public {
        uint64 until = uint64(block.timestamp) + actionLog.DEFAULT_COOL_OFF();
        vm.expectEmit(address(registry));
        emit IAgentRegistry.WorkerStatusChanged(
            alpha.workerId, IAgentRegistry.WorkerStatus.Active, IAgentRegistry.WorkerStatus.Suspended
        );
        vm.expectEmit(address(registry));
        emit IAgentRegistry.WorkerSuspended(
            alpha.workerId, IAgentRegistry.Tier.Queen, queenId, until, IAgentRegistry.WorkerStatus.Active
        );
        _record(queenOperator, alpha.nftId, "override");

        assertEq(uint8(registry.getWorker(alpha.workerId).status), uint8(IAgentRegistry.WorkerStatus.Suspended));
        IAgentRegistry.Suspension memory s = registry.workerSuspension(alpha.workerId);
        assertEq(uint8(s.byTier), uint8(IAgentRegistry.Tier.Queen));
        assertEq(s.byAgentId, queenId);
        assertEq(s.until, until);
        // The worker may not record (the runtime's trades end in a record) until it is resumed.
        _expectWorkerSuspended(alpha);
        // Its neighbour is untouched.
        _record(betaOperator, beta.nftId, "trade");
    }

    function test_TheWorkerRecordsAgainOnceTheStatedCoolOffEnds() public {
        vm.prank(scoutOperator);
        actionLog.recordOverride(alpha.nftId, 10 minutes, "", "CAP_BREACH");
        vm.warp(block.timestamp + 10 minutes - 1);
        _expectWorkerSuspended(alpha);
        vm.warp(block.timestamp + 1);
        // No transaction was needed: the registry reads the suspension as over.
        (, IAgentRegistry.WorkerStatus status) = registry.workerAuth(alpha.workerId);
        assertEq(uint8(status), uint8(IAgentRegistry.WorkerStatus.Active));
        _record(operator, alpha.nftId, "trade");
    }

    function test_TheOverridingTierResumesTheWorker() public {
        _record(scoutOperator, alpha.nftId, "override");
        vm.expectEmit(address(registry));
        emit IAgentRegistry.WorkerStatusChanged(
            alpha.workerId, IAgentRegistry.WorkerStatus.Suspended, IAgentRegistry.WorkerStatus.Active
        );
        vm.expectEmit(address(registry));
        emit IAgentRegistry.WorkerResumed(alpha.workerId, IAgentRegistry.Tier.Scout, otherScoutId);
        // Another scout: the same tier may lift it.
        _record(otherScoutOperator, alpha.nftId, "resume");
        assertEq(uint8(registry.workerSuspension(alpha.workerId).byTier), uint8(IAgentRegistry.Tier.None));
        _record(operator, alpha.nftId, "trade");
    }

    function test_AScoutCannotLiftTheQueensSuspension() public {
        _record(queenOperator, alpha.nftId, "override");
        vm.expectRevert(
            abi.encodeWithSelector(
                IActionLog.ResumeNotAllowed.selector, IAgentRegistry.Tier.Scout, IAgentRegistry.Tier.Queen
            )
        );
        _record(scoutOperator, alpha.nftId, "resume");
        // Nor shorten it with an override of its own: the queen's stays as it was.
        IAgentRegistry.Suspension memory before = registry.workerSuspension(alpha.workerId);
        vm.prank(scoutOperator);
        actionLog.recordOverride(alpha.nftId, 1, "", "");
        vm.warp(block.timestamp + 1);
        IAgentRegistry.Suspension memory after_ = registry.workerSuspension(alpha.workerId);
        assertEq(after_.until, before.until);
        assertEq(uint8(after_.byTier), uint8(IAgentRegistry.Tier.Queen));
        _expectWorkerSuspended(alpha);
        // The queen can lift a scout's suspension too: a higher tier may.
        _record(queenOperator, alpha.nftId, "resume");
        _record(scoutOperator, beta.nftId, "override");
        _record(queenOperator, beta.nftId, "resume");
        _record(betaOperator, beta.nftId, "trade");
    }

    function test_AWorkerNeverOverridesOrResumes() public {
        vm.expectRevert(
            abi.encodeWithSelector(
                IActionLog.OverrideNotAllowed.selector, IAgentRegistry.Tier.Worker, IAgentRegistry.Tier.Worker
            )
        );
        _record(operator, alpha.nftId, "override");
        vm.expectRevert(
            abi.encodeWithSelector(
                IActionLog.OverrideNotAllowed.selector, IAgentRegistry.Tier.Worker, IAgentRegistry.Tier.Worker
            )
        );
        vm.prank(operator);
        actionLog.recordOverride(alpha.nftId, 60, "", "");
        // Suspended, it cannot lift its own suspension either.
        _record(queenOperator, alpha.nftId, "override");
        vm.expectRevert(abi.encodeWithSelector(IActionLog.WorkerSuspended.selector, alpha.workerId));
        _record(operator, alpha.nftId, "resume");
        // On another worker's token it is a stranger.
        vm.expectRevert(abi.encodeWithSelector(IActionLog.UnauthorizedAgent.selector, operator, beta.nftId));
        _record(operator, beta.nftId, "override");
    }

    function test_StrangersAndOwnersCannotOverrideOrResume() public {
        _record(queenOperator, alpha.nftId, "override");
        address[4] memory callers = [stranger, alice, admin, address(this)];
        for (uint256 i = 0; i < callers.length; ++i) {
            for (uint256 j = 0; j < 2; ++j) {
                string memory actionType = j == 0 ? "override" : "resume";
                vm.expectRevert(
                    abi.encodeWithSelector(IActionLog.UnauthorizedAgent.selector, callers[i], alpha.nftId)
                );
                _record(callers[i], alpha.nftId, actionType);
            }
        }
        _expectWorkerSuspended(alpha);
    }

    function test_AManagersSuspensionOutranksEveryOverride() public {
        vm.prank(admin);
        registry.setWorkerStatus(alpha.workerId, IAgentRegistry.WorkerStatus.Suspended);
        // An override is recorded but does not turn it into one that ends by itself.
        _record(queenOperator, alpha.nftId, "override");
        assertEq(uint8(registry.workerSuspension(alpha.workerId).byTier), uint8(IAgentRegistry.Tier.None));
        vm.expectRevert(abi.encodeWithSelector(IActionLog.NothingToResume.selector, alpha.nftId));
        _record(queenOperator, alpha.nftId, "resume");
        vm.warp(block.timestamp + actionLog.MAX_COOL_OFF() + 1);
        _expectWorkerSuspended(alpha);
        // A manager's word ends an override's suspension too.
        vm.prank(admin);
        registry.setWorkerStatus(alpha.workerId, IAgentRegistry.WorkerStatus.Active);
        _record(queenOperator, alpha.nftId, "override");
        vm.prank(admin);
        registry.setWorkerStatus(alpha.workerId, IAgentRegistry.WorkerStatus.Active);
        assertEq(uint8(registry.workerSuspension(alpha.workerId).byTier), uint8(IAgentRegistry.Tier.None));
        _record(operator, alpha.nftId, "trade");
    }

    function test_AnIdleWorkerOverriddenReturnsToIdleNotActive() public {
        vm.prank(admin);
        registry.setWorkerStatus(alpha.workerId, IAgentRegistry.WorkerStatus.Idle);
        vm.prank(scoutOperator);
        actionLog.recordOverride(alpha.nftId, 60, "", "");
        vm.warp(block.timestamp + 60);
        assertEq(uint8(registry.getWorker(alpha.workerId).status), uint8(IAgentRegistry.WorkerStatus.Idle));
        // A second override after the first ended, then a resume: still idle.
        _record(queenOperator, alpha.nftId, "override");
        _record(scoutOperator, alpha.nftId, "override");
        _record(queenOperator, alpha.nftId, "resume");
        assertEq(uint8(registry.getWorker(alpha.workerId).status), uint8(IAgentRegistry.WorkerStatus.Idle));
    }

    function test_NothingToResumeOnAWorkerNeverOverridden() public {
        vm.expectRevert(abi.encodeWithSelector(IActionLog.NothingToResume.selector, alpha.nftId));
        _record(queenOperator, alpha.nftId, "resume");
        // Once resumed, a second resume has nothing left to lift.
        _record(queenOperator, alpha.nftId, "override");
        _record(queenOperator, alpha.nftId, "resume");
        vm.expectRevert(abi.encodeWithSelector(IActionLog.NothingToResume.selector, alpha.nftId));
        _record(queenOperator, alpha.nftId, "resume");
    }

    function test_TheStatedCoolOffIsBounded() public {
        uint64 max = actionLog.MAX_COOL_OFF();
        vm.startPrank(queenOperator);
        vm.expectRevert(abi.encodeWithSelector(IActionLog.InvalidCoolOff.selector, 0, max));
        actionLog.recordOverride(alpha.nftId, 0, "", "");
        vm.expectRevert(abi.encodeWithSelector(IActionLog.InvalidCoolOff.selector, max + 1, max));
        actionLog.recordOverride(alpha.nftId, max + 1, "", "");
        actionLog.recordOverride(alpha.nftId, max, "", "");
        vm.stopPrank();
        assertEq(registry.workerSuspension(alpha.workerId).until, block.timestamp + max);
    }

    function test_RecordOverrideIsAnOverrideEntry() public {
        vm.expectEmit(address(actionLog));
        emit IActionLog.ActionRecorded(
            1, alpha.nftId, IAgentRegistry.Tier.Queen, queenId, queenOperator, "override", "{}", "CAP_BREACH", true
        );
        vm.prank(queenOperator);
        actionLog.recordOverride(alpha.nftId, 300, "{}", "CAP_BREACH");
        vm.expectEmit(address(actionLog));
        emit IActionLog.ActionRecorded(
            2, alpha.nftId, IAgentRegistry.Tier.Queen, queenId, queenOperator, "resume", "", "LIFTED", false
        );
        _record(queenOperator, alpha.nftId, "resume", "LIFTED");
    }

    // ---------------------------------------------------------------- scouts and the queen

    function test_TheQueenSuspendsAScoutWhoThenCannotRecord() public {
        vm.expectEmit(address(registry));
        emit IAgentRegistry.AgentSuspended(
            scoutId, IAgentRegistry.Tier.Queen, queenId, uint64(block.timestamp) + actionLog.DEFAULT_COOL_OFF()
        );
        _record(queenOperator, scoutId, "override");
        vm.expectRevert(abi.encodeWithSelector(IActionLog.AgentSuspended.selector, scoutId));
        _record(scoutOperator, alpha.nftId, "flag");
        // Not even an override of a worker.
        vm.expectRevert(abi.encodeWithSelector(IActionLog.AgentSuspended.selector, scoutId));
        _record(scoutOperator, alpha.nftId, "override");
        // The other scout goes on.
        _record(otherScoutOperator, alpha.nftId, "flag");
        vm.expectEmit(address(registry));
        emit IAgentRegistry.AgentResumed(scoutId, IAgentRegistry.Tier.Queen, queenId);
        _record(queenOperator, scoutId, "resume");
        _record(scoutOperator, alpha.nftId, "flag");
    }

    function test_AScoutSuspensionEndsWithItsCoolOff() public {
        vm.prank(queenOperator);
        actionLog.recordOverride(scoutId, 120, "", "");
        vm.warp(block.timestamp + 119);
        vm.expectRevert(abi.encodeWithSelector(IActionLog.AgentSuspended.selector, scoutId));
        _record(scoutOperator, alpha.nftId, "flag");
        vm.warp(block.timestamp + 1);
        _record(scoutOperator, alpha.nftId, "flag");
    }

    function test_AScoutOverridesNeitherScoutsNorTheQueen() public {
        vm.expectRevert(
            abi.encodeWithSelector(
                IActionLog.OverrideNotAllowed.selector, IAgentRegistry.Tier.Scout, IAgentRegistry.Tier.Scout
            )
        );
        _record(scoutOperator, otherScoutId, "override");
        vm.expectRevert(
            abi.encodeWithSelector(
                IActionLog.OverrideNotAllowed.selector, IAgentRegistry.Tier.Scout, IAgentRegistry.Tier.Queen
            )
        );
        _record(scoutOperator, queenId, "override");
        vm.expectRevert(
            abi.encodeWithSelector(
                IActionLog.OverrideNotAllowed.selector, IAgentRegistry.Tier.Queen, IAgentRegistry.Tier.Queen
            )
        );
        _record(queenOperator, queenId, "override");
        // A scout may not lift the queen's suspension of another scout either.
        _record(queenOperator, otherScoutId, "override");
        vm.expectRevert(
            abi.encodeWithSelector(
                IActionLog.OverrideNotAllowed.selector, IAgentRegistry.Tier.Scout, IAgentRegistry.Tier.Scout
            )
        );
        _record(scoutOperator, otherScoutId, "resume");
    }

    function test_OnlyOverridesAndResumesMayTargetAScout() public {
        vm.expectRevert(
            abi.encodeWithSelector(IAgentRegistry.WrongAgentKind.selector, scoutId, IAgentRegistry.AgentKind.Scout)
        );
        _record(queenOperator, scoutId, "directive");
    }

    // ---------------------------------------------------------------- the registry's side

    function test_OnlyTheOverrideRoleSuspendsOrResumes() public {
        address[3] memory callers = [admin, queenOperator, operator];
        for (uint256 i = 0; i < callers.length; ++i) {
            vm.startPrank(callers[i]);
            _expectMissingOverrideRole(callers[i]);
            registry.suspendWorker(alpha.workerId, IAgentRegistry.Tier.Queen, queenId, type(uint64).max);
            _expectMissingOverrideRole(callers[i]);
            registry.resumeWorker(alpha.workerId, IAgentRegistry.Tier.Queen, queenId);
            _expectMissingOverrideRole(callers[i]);
            registry.suspendAgent(scoutId, IAgentRegistry.Tier.Queen, queenId, type(uint64).max);
            _expectMissingOverrideRole(callers[i]);
            registry.resumeAgent(scoutId, IAgentRegistry.Tier.Queen, queenId);
            vm.stopPrank();
        }
    }

    function test_WithoutTheOverrideRoleAnOverrideRevertsWhole() public {
        vm.prank(admin);
        registry.revokeRole(Roles.OVERRIDE, address(actionLog));
        _expectMissingOverrideRole(address(actionLog));
        _record(queenOperator, alpha.nftId, "override");
        assertEq(actionLog.entryCount(), 0, "an override that changed nothing was recorded");
    }

    // ---------------------------------------------------------------- fuzz: the tier rules

    /// @dev Any caller (the queen, a scout, a worker's operator, a stranger) overriding any
    /// target (a token's worker, a scout, the queen) with any cool-off: it succeeds exactly when
    /// the caller's tier is above the target's and the cool-off is valid, and then (and only
    /// then) the target is suspended for exactly that cool-off.
    function testFuzz_OnlyAHigherTierOverrides(uint8 callerSeed, uint8 targetSeed, uint64 coolOff, address anyone)
        public
    {
        vm.assume(anyone != queenOperator && anyone != scoutOperator && anyone != otherScoutOperator);
        vm.assume(anyone != operator && anyone != betaOperator);
        (address caller, IAgentRegistry.Tier callerTier) = _caller(callerSeed, anyone);
        (uint256 target, IAgentRegistry.Tier targetTier) = _target(targetSeed);
        bool valid = coolOff != 0 && coolOff <= actionLog.MAX_COOL_OFF();
        bool allowed = valid && callerTier.above(targetTier);

        vm.prank(caller);
        try actionLog.recordOverride(target, coolOff, "", "") {
            assertTrue(allowed, "an override the tier rules forbid went through");
            if (targetTier == IAgentRegistry.Tier.Worker) {
                _expectWorkerSuspended(alpha);
                assertEq(registry.workerSuspension(alpha.workerId).until, block.timestamp + coolOff);
            } else {
                assertEq(registry.agentSuspension(target).until, block.timestamp + coolOff);
            }
        } catch {
            assertFalse(allowed, "an override the tier rules allow was refused");
            (, IAgentRegistry.WorkerStatus status) = registry.workerAuth(alpha.workerId);
            assertEq(uint8(status), uint8(IAgentRegistry.WorkerStatus.Active));
            assertEq(registry.agentSuspension(otherScoutId).until, 0);
        }
    }

    /// @dev After the queen or a scout overrode alpha's worker, any caller tries to resume it at
    /// any later time: only a tier at least the overrider's, and above a worker, lifts it.
    function testFuzz_OnlyTheOverridingTierOrAboveResumes(
        bool byQueen,
        uint8 callerSeed,
        uint32 later,
        address anyone
    ) public {
        vm.assume(anyone != queenOperator && anyone != scoutOperator && anyone != otherScoutOperator);
        vm.assume(anyone != operator && anyone != betaOperator);
        _record(byQueen ? queenOperator : scoutOperator, alpha.nftId, "override");
        vm.warp(block.timestamp + later);
        bool ended = later >= actionLog.DEFAULT_COOL_OFF();
        (address caller, IAgentRegistry.Tier callerTier) = _caller(callerSeed, anyone);
        IAgentRegistry.Tier overrider = byQueen ? IAgentRegistry.Tier.Queen : IAgentRegistry.Tier.Scout;
        bool allowed = callerTier.above(IAgentRegistry.Tier.Worker) && !callerTier.below(overrider);

        vm.prank(caller);
        try actionLog.record(alpha.nftId, "resume", "", "") {
            assertTrue(allowed, "a resume the tier rules forbid went through");
            assertEq(uint8(registry.workerSuspension(alpha.workerId).byTier), uint8(IAgentRegistry.Tier.None));
        } catch {
            assertFalse(allowed, "a resume the tier rules allow was refused");
            (, IAgentRegistry.WorkerStatus status) = registry.workerAuth(alpha.workerId);
            IAgentRegistry.WorkerStatus expected =
                ended ? IAgentRegistry.WorkerStatus.Active : IAgentRegistry.WorkerStatus.Suspended;
            assertEq(uint8(status), uint8(expected));
        }
    }

    // ---------------------------------------------------------------- helpers

    /// @dev seed % 5: the queen, a scout, alpha's worker operator, beta's operator (a worker
    /// operator, but not alpha's), anyone else.
    function _caller(uint8 seed, address anyone) private view returns (address, IAgentRegistry.Tier) {
        uint8 pick = seed % 5;
        if (pick == 0) return (queenOperator, IAgentRegistry.Tier.Queen);
        if (pick == 1) return (scoutOperator, IAgentRegistry.Tier.Scout);
        if (pick == 2) return (operator, IAgentRegistry.Tier.Worker);
        if (pick == 3) return (betaOperator, IAgentRegistry.Tier.Worker);
        return (anyone, IAgentRegistry.Tier.None);
    }

    /// @dev seed % 3: alpha's worker, the other scout, the queen.
    function _target(uint8 seed) private view returns (uint256, IAgentRegistry.Tier) {
        uint8 pick = seed % 3;
        if (pick == 0) return (alpha.nftId, IAgentRegistry.Tier.Worker);
        if (pick == 1) return (otherScoutId, IAgentRegistry.Tier.Scout);
        return (queenId, IAgentRegistry.Tier.Queen);
    }

    function _record(address caller, uint256 target, string memory actionType) private {
        _record(caller, target, actionType, "");
    }

    function _record(address caller, uint256 target, string memory actionType, string memory reason) private {
        vm.prank(caller);
        actionLog.record(target, actionType, "", reason);
    }

    function _expectWorkerSuspended(Spawned memory s) private {
        address workerOperator = registry.getWorker(s.workerId).operator;
        vm.expectRevert(abi.encodeWithSelector(IActionLog.WorkerSuspended.selector, s.workerId));
        vm.prank(workerOperator);
        actionLog.record(s.nftId, "trade", "", "");
    }

    function _expectMissingOverrideRole(address account) private {
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, account, Roles.OVERRIDE)
        );
    }
}

/// @dev Tier order as the action log applies it.
library Tiers {
    function above(IAgentRegistry.Tier a, IAgentRegistry.Tier b) internal pure returns (bool) {
        return uint8(a) > uint8(b);
    }

    function below(IAgentRegistry.Tier a, IAgentRegistry.Tier b) internal pure returns (bool) {
        return uint8(a) < uint8(b);
    }
}
