// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {CommonBase} from "forge-std/Base.sol";
import {StdUtils} from "forge-std/StdUtils.sol";
import {StdInvariant} from "forge-std/StdInvariant.sol";
import {ActionLog} from "../ActionLog.sol";
import {AgentRegistry} from "../AgentRegistry.sol";
import {IAgentSpawner} from "../interfaces/IAgentSpawner.sol";
import {IAgentRegistry} from "../interfaces/IAgentRegistry.sol";
import {EcosystemTest, Spawned} from "./utils/EcosystemTest.sol";

/// @notice Issue 24, finding 2. Every actor the ecosystem has (the queen, two scouts, two worker
/// operators, a stranger and the manager) overrides, resumes, records and changes statuses at
/// random while time passes. A model of the rules (who may override whom, what a suspension in
/// force by a higher tier or a manager keeps, when a cool-off ends) predicts every call's outcome
/// and the registry's state after it; the handler counts each disagreement, since a failed
/// assertion here would be swallowed as a revert.
contract OverrideHandler is CommonBase, StdUtils {
    struct WorkerModel {
        IAgentRegistry.WorkerStatus base; // the status a manager (or a resume) left
        IAgentRegistry.Tier byTier; // None: no override's suspension
        IAgentRegistry.WorkerStatus resumeTo;
        uint64 until;
        uint256 byAgentId;
    }

    struct ScoutModel {
        IAgentRegistry.Tier byTier;
        uint64 until;
        uint256 byAgentId;
    }

    ActionLog private immutable log;
    AgentRegistry private immutable registry;
    address private immutable admin;

    address[] private callers;
    mapping(address caller => IAgentRegistry.Tier) private tierOf;
    mapping(address caller => uint256) private agentIdOf;
    uint256[] public targets;
    uint256[] public workerIds;
    uint256[] public scoutIds;
    mapping(uint256 nftId => uint256 workerId) private workerOfTarget;
    mapping(uint256 nftId => bool) private isScout;
    mapping(uint256 workerId => address) private operatorOf;
    mapping(uint256 workerId => WorkerModel) private workers;
    mapping(uint256 scoutId => ScoutModel) private scouts;

    /// @notice Calls whose success or failure differed from the model's prediction.
    uint256 public outcomeMismatches;
    /// @notice Times the registry's state differed from the model's after a call.
    uint256 public stateMismatches;
    /// @notice Overrides or resumes that went through from a worker's operator or a stranger, and
    /// records by a suspended worker or scout.
    uint256 public forbiddenSuccesses;
    uint256 public overridesApplied;
    uint256 public resumes;

    constructor(
        ActionLog log_,
        AgentRegistry registry_,
        address admin_,
        address[5] memory callers_,
        uint256[3] memory agentIds,
        Spawned[2] memory tokens
    ) {
        (log, registry, admin) = (log_, registry_, admin_);
        IAgentRegistry.Tier[5] memory tiers = [
            IAgentRegistry.Tier.Queen,
            IAgentRegistry.Tier.Scout,
            IAgentRegistry.Tier.Scout,
            IAgentRegistry.Tier.Worker,
            IAgentRegistry.Tier.None
        ];
        for (uint256 i = 0; i < 5; ++i) {
            callers.push(callers_[i]);
            tierOf[callers_[i]] = tiers[i];
            if (i < 3) agentIdOf[callers_[i]] = agentIds[i];
        }
        for (uint256 i = 0; i < 2; ++i) {
            targets.push(tokens[i].nftId);
            workerIds.push(tokens[i].workerId);
            workerOfTarget[tokens[i].nftId] = tokens[i].workerId;
            operatorOf[tokens[i].workerId] = registry.getWorker(tokens[i].workerId).operator;
        }
        for (uint256 i = 1; i < 3; ++i) {
            targets.push(agentIds[i]);
            scoutIds.push(agentIds[i]);
            isScout[agentIds[i]] = true;
        }
        targets.push(agentIds[0]); // the queen
        // Weights: the interesting sequences (a scout overriding a worker the queen holds, a
        // scout resuming it) need the queen, the scouts and the workers picked often.
        for (uint256 i = 0; i < 3; ++i) {
            callers.push(callers_[i]);
            targets.push(tokens[i % 2].nftId);
        }
    }

    // ---------------------------------------------------------------- actions

    function overrideTarget(uint256 callerSeed, uint256 targetSeed, uint256 coolOffSeed, bool byDefault) external {
        address caller = callers[callerSeed % callers.length];
        uint256 target = targets[targetSeed % targets.length];
        uint256 coolOff = byDefault ? log.DEFAULT_COOL_OFF() : bound(coolOffSeed, 0, log.MAX_COOL_OFF() + 1);
        IAgentRegistry.Tier tier = tierOf[caller];
        bool expected = coolOff != 0 && coolOff <= log.MAX_COOL_OFF() && _mayAct(caller)
            && uint8(tier) > uint8(_tierOfTarget(target)) && tier != IAgentRegistry.Tier.Worker;

        vm.prank(caller);
        bool ok;
        if (byDefault) {
            try log.record(target, "override", "", "") {
                ok = true;
            } catch {}
        } else {
            try log.recordOverride(target, uint64(coolOff), "", "") {
                ok = true;
            } catch {}
        }
        _outcome(ok, expected, tier);
        if (ok) _applyOverride(target, tier, agentIdOf[caller], uint64(block.timestamp + coolOff));
        _compare();
    }

    function resume(uint256 callerSeed, uint256 targetSeed) external {
        address caller = callers[callerSeed % callers.length];
        uint256 target = targets[targetSeed % targets.length];
        IAgentRegistry.Tier tier = tierOf[caller];
        IAgentRegistry.Tier suspendedBy = isScout[target]
            ? scouts[target].byTier
            : (workerOfTarget[target] != 0 ? workers[workerOfTarget[target]].byTier : IAgentRegistry.Tier.None);
        bool expected = _mayAct(caller) && uint8(tier) > uint8(_tierOfTarget(target))
            && tier != IAgentRegistry.Tier.Worker && suspendedBy != IAgentRegistry.Tier.None
            && uint8(tier) >= uint8(suspendedBy);

        vm.prank(caller);
        bool ok;
        try log.record(target, "resume", "", "") {
            ok = true;
        } catch {}
        _outcome(ok, expected, tier);
        if (ok) {
            ++resumes;
            if (isScout[target]) {
                delete scouts[target];
            } else {
                WorkerModel storage m = workers[workerOfTarget[target]];
                m.base = m.resumeTo;
                _clear(m);
            }
        }
        _compare();
    }

    function workerRecords(uint256 workerSeed) external {
        uint256 workerId = workerIds[workerSeed % workerIds.length];
        bool expected = _effective(workers[workerId]) != IAgentRegistry.WorkerStatus.Suspended;
        vm.prank(operatorOf[workerId]);
        bool ok;
        try log.record(targets[workerSeed % workerIds.length], "trade", "", "") {
            ok = true;
        } catch {}
        if (ok && !expected) ++forbiddenSuccesses;
        if (ok != expected) ++outcomeMismatches;
        _compare();
    }

    function scoutRecords(uint256 scoutSeed) external {
        address scout = callers[1 + (scoutSeed % 2)];
        bool expected = _mayAct(scout);
        vm.prank(scout);
        bool ok;
        try log.record(targets[0], "flag", "", "") {
            ok = true;
        } catch {}
        if (ok && !expected) ++forbiddenSuccesses;
        if (ok != expected) ++outcomeMismatches;
        _compare();
    }

    function managerSetsStatus(uint256 workerSeed, uint8 statusSeed) external {
        uint256 workerId = workerIds[workerSeed % workerIds.length];
        IAgentRegistry.WorkerStatus status = IAgentRegistry.WorkerStatus(statusSeed % 3);
        vm.prank(admin);
        registry.setWorkerStatus(workerId, status);
        WorkerModel storage m = workers[workerId];
        m.base = status;
        _clear(m);
        _compare();
    }

    function passTime(uint256 secondsSeed) external {
        vm.warp(block.timestamp + bound(secondsSeed, 0, 2 days));
        _compare();
    }

    // ---------------------------------------------------------------- the model

    function _applyOverride(uint256 target, IAgentRegistry.Tier tier, uint256 agentId, uint64 until) private {
        if (isScout[target]) {
            ScoutModel storage s = scouts[target];
            if (s.until > block.timestamp && uint8(s.byTier) > uint8(tier)) return;
            scouts[target] = ScoutModel(tier, until, agentId);
            ++overridesApplied;
            return;
        }
        WorkerModel storage m = workers[workerOfTarget[target]];
        IAgentRegistry.WorkerStatus now_ = _effective(m);
        bool suspended = now_ == IAgentRegistry.WorkerStatus.Suspended;
        if (suspended && (m.byTier == IAgentRegistry.Tier.None || uint8(m.byTier) > uint8(tier))) return;
        m.resumeTo = suspended ? m.resumeTo : now_;
        (m.byTier, m.until, m.byAgentId) = (tier, until, agentId);
        ++overridesApplied;
    }

    function _effective(WorkerModel storage m) private view returns (IAgentRegistry.WorkerStatus) {
        if (m.byTier == IAgentRegistry.Tier.None) return m.base;
        return m.until > block.timestamp ? IAgentRegistry.WorkerStatus.Suspended : m.resumeTo;
    }

    function _clear(WorkerModel storage m) private {
        (m.byTier, m.resumeTo, m.until, m.byAgentId) =
            (IAgentRegistry.Tier.None, IAgentRegistry.WorkerStatus.Active, 0, 0);
    }

    /// @dev Queens always; a scout unless suspended; nobody else may override or resume.
    function _mayAct(address caller) private view returns (bool) {
        IAgentRegistry.Tier tier = tierOf[caller];
        if (tier == IAgentRegistry.Tier.Queen) return true;
        if (tier != IAgentRegistry.Tier.Scout) return false;
        return scouts[agentIdOf[caller]].until <= block.timestamp;
    }

    function _tierOfTarget(uint256 target) private view returns (IAgentRegistry.Tier) {
        if (workerOfTarget[target] != 0) return IAgentRegistry.Tier.Worker;
        return isScout[target] ? IAgentRegistry.Tier.Scout : IAgentRegistry.Tier.Queen;
    }

    function _outcome(bool ok, bool expected, IAgentRegistry.Tier tier) private {
        if (ok != expected) ++outcomeMismatches;
        if (ok && uint8(tier) < uint8(IAgentRegistry.Tier.Scout)) ++forbiddenSuccesses;
    }

    function _compare() private {
        for (uint256 i = 0; i < workerIds.length; ++i) {
            uint256 id = workerIds[i];
            WorkerModel storage m = workers[id];
            (, IAgentRegistry.WorkerStatus status) = registry.workerAuth(id);
            IAgentRegistry.Suspension memory s = registry.workerSuspension(id);
            bool same = status == _effective(m) && s.byTier == m.byTier && s.until == m.until
                && s.byAgentId == m.byAgentId && (m.byTier == IAgentRegistry.Tier.None || s.resumeTo == m.resumeTo);
            if (!same) ++stateMismatches;
        }
        for (uint256 i = 0; i < scoutIds.length; ++i) {
            IAgentRegistry.Suspension memory s = registry.agentSuspension(scoutIds[i]);
            ScoutModel storage m = scouts[scoutIds[i]];
            if (s.byTier != m.byTier || s.until != m.until || s.byAgentId != m.byAgentId) ++stateMismatches;
        }
    }
}

contract OverrideInvariantTest is EcosystemTest {
    OverrideHandler private handler;

    function setUp() public override {
        super.setUp();
        Spawned memory alpha = _spawn(alice, "ALPHA", IAgentSpawner.PoolSide.STABLE);
        Spawned memory beta = _spawn(bob, "BETA", IAgentSpawner.PoolSide.WRAPPED_NATIVE);
        address[5] memory callers = [
            makeAddr("queenOperator"),
            makeAddr("scoutOperator"),
            makeAddr("otherScoutOperator"),
            operator,
            makeAddr("stranger")
        ];
        uint256[3] memory agentIds;
        vm.startPrank(admin);
        agentIds[0] = registry.registerAgent(IAgentRegistry.Tier.Queen, callers[0], admin);
        agentIds[1] = registry.registerAgent(IAgentRegistry.Tier.Scout, callers[1], admin);
        agentIds[2] = registry.registerAgent(IAgentRegistry.Tier.Scout, callers[2], admin);
        // BETA's worker has an operator of its own, who is a stranger to ALPHA's.
        registry.setWorkerOperator(beta.workerId, makeAddr("betaOperator"));
        vm.stopPrank();
        handler = new OverrideHandler(actionLog, registry, admin, callers, agentIds, [alpha, beta]);

        bytes4[] memory selectors = new bytes4[](6);
        selectors[0] = OverrideHandler.overrideTarget.selector;
        selectors[1] = OverrideHandler.resume.selector;
        selectors[2] = OverrideHandler.workerRecords.selector;
        selectors[3] = OverrideHandler.scoutRecords.selector;
        selectors[4] = OverrideHandler.managerSetsStatus.selector;
        selectors[5] = OverrideHandler.passTime.selector;
        targetContract(address(handler));
        targetSelector(StdInvariant.FuzzSelector({addr: address(handler), selectors: selectors}));
    }

    function invariant_EveryCallFollowsTheTierRules() public view {
        assertEq(handler.outcomeMismatches(), 0, "a call's outcome broke the tier rules");
        assertEq(handler.stateMismatches(), 0, "the registry's suspensions differ from the rules");
    }

    function invariant_NoWorkerOrStrangerEverOverridesAndNoSuspendedAgentActs() public view {
        assertEq(handler.forbiddenSuccesses(), 0, "authority an actor does not have was used");
    }

    /// @dev Whatever happened, a suspension comes from a scout or the queen (a scout's only from
    /// the queen) and ends within the longest cool-off.
    function invariant_SuspensionsComeFromAboveAndEndInTime() public view {
        for (uint256 i = 0; i < 2; ++i) {
            IAgentRegistry.Suspension memory s = registry.workerSuspension(handler.workerIds(i));
            if (s.byTier == IAgentRegistry.Tier.None) continue;
            assertGe(uint8(s.byTier), uint8(IAgentRegistry.Tier.Scout));
            assertLe(s.until, block.timestamp + actionLog.MAX_COOL_OFF());
        }
        for (uint256 i = 0; i < 2; ++i) {
            IAgentRegistry.Suspension memory s = registry.agentSuspension(handler.scoutIds(i));
            if (s.byTier == IAgentRegistry.Tier.None) continue;
            assertEq(uint8(s.byTier), uint8(IAgentRegistry.Tier.Queen));
            assertLe(s.until, block.timestamp + actionLog.MAX_COOL_OFF());
        }
    }
}
