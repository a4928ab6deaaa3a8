// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAgentSpawner} from "../interfaces/IAgentSpawner.sol";
import {IAgentRegistry} from "../interfaces/IAgentRegistry.sol";
import {IWorkerVoting} from "../interfaces/IWorkerVoting.sol";
import {EcosystemTest, Spawned} from "./utils/EcosystemTest.sol";

/// @title Gas report of the ecosystem's hot paths
/// @notice Each test measures one call with vm.snapshotGasLastCall into snapshots/<Contract>.json
/// (compared in CI by `npm run gas:check`). Everything a call depends on (balances, approvals,
/// proposals) is prepared in setUp, so the measured call starts cold like a real transaction
/// instead of reusing storage a previous call in the same test warmed up.
contract GasReportTest is EcosystemTest {
    uint256 private constant TRADE_STABLE = 1_000e6;
    bytes32 private constant NEW_DEPOSITOR = keccak256("user-1");
    bytes32 private constant RETURNING_DEPOSITOR = keccak256("user-2");

    address private queenOperator;
    Spawned private alpha;
    uint256 private proposalId;

    function setUp() public override {
        super.setUp();
        queenOperator = makeAddr("queenOperator");
        vm.prank(admin);
        registry.registerAgent(IAgentRegistry.Tier.Queen, queenOperator, admin);

        alpha = _spawn(alice, "ALPHA", IAgentSpawner.PoolSide.STABLE);
        // Bob already holds tokens (so selling has real pair reserve to draw on); carol has
        // never held any. Both are funded and approved the pool beforehand, as a wallet would
        // in earlier transactions.
        _buy(alpha.pool, bob, TRADE_STABLE);
        _fundAndApprove(bob);
        _fundAndApprove(carol);

        // The creator gets nothing for free: alice buys her stake on the curve like bob did.
        _buy(alpha.pool, alice, TRADE_STABLE);
        // Votes weigh holdings just before the proposal and at its snapshot: open it a second
        // later, then wait out the voting delay so votes are accepted.
        vm.warp(block.timestamp + 1);
        vm.prank(alice);
        proposalId = voting.propose(alpha.workerId, _newWorkerConfig(), "tighten slippage");
        vm.warp(voting.getProposal(proposalId).startTime);

        // Deposits of stable and native coin waiting at two deposit addresses: one never swept
        // (its sweep deploys the forwarder), one swept before.
        vm.prank(sweeper);
        depositFactory.sweep(RETURNING_DEPOSITOR, new address[](0));
        _deposit(NEW_DEPOSITOR);
        _deposit(RETURNING_DEPOSITOR);
    }

    function test_Gas_Spawn() public {
        IAgentRegistry.Metadata memory metadata = IAgentRegistry.Metadata({
            description: "Momentum agent trading the majors on 4h signals",
            logoUri: "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
            website: "https://agents.example/gamma"
        });
        uint256 fee = spawner.spawnFee();
        vm.deal(dave, fee);
        vm.prank(dave);
        (address token,,, uint256 workerId) =
            spawner.spawn{value: fee}("Gamma Agent", "GAMMA", 0, IAgentSpawner.PoolSide.STABLE, metadata);
        vm.snapshotGasLastCall("AgentSpawner", "spawn");

        assertEq(registry.getWorker(workerId).token, token);
        assertEq(registry.metadataOf(registry.agentOfToken(token)).website, metadata.website);
    }

    function test_Gas_SwapBuy() public {
        uint256 balanceBefore = alpha.token.balanceOf(bob);
        vm.prank(bob);
        uint256 amountOut = alpha.pool.swapExactIn(address(stable), TRADE_STABLE, 1, bob);
        vm.snapshotGasLastCall("AgentPool", "swapExactIn_buy");

        assertEq(alpha.token.balanceOf(bob), balanceBefore + amountOut);
    }

    /// @dev A buyer's first receipt also self-delegates it (one more checkpoint), the usual
    /// case for a new trader.
    function test_Gas_SwapFirstBuy() public {
        vm.prank(carol);
        uint256 amountOut = alpha.pool.swapExactIn(address(stable), TRADE_STABLE, 1, carol);
        vm.snapshotGasLastCall("AgentPool", "swapExactIn_firstBuy");

        assertEq(alpha.token.getVotes(carol), amountOut, "first receipt not self-delegated");
    }

    function test_Gas_SwapSell() public {
        uint256 amountIn = alpha.token.balanceOf(bob) / 2;
        vm.prank(bob);
        uint256 amountOut = alpha.pool.swapExactIn(address(alpha.token), amountIn, 1, bob);
        vm.snapshotGasLastCall("AgentPool", "swapExactIn_sell");

        assertEq(stable.balanceOf(bob), TRADE_STABLE + amountOut);
    }

    function test_Gas_RecordByWorker() public {
        bytes memory payload = bytes('{"side":"buy","amount":"250000000","venue":"pool"}');
        vm.prank(operator);
        uint256 entryId = actionLog.record(alpha.nftId, "trade", payload, "momentum_breakout");
        vm.snapshotGasLastCall("ActionLog", "record_worker");

        assertEq(entryId, 1);
        assertEq(registry.getWorker(alpha.workerId).lastActiveAt, block.timestamp, "worker not marked active");
    }

    function test_Gas_RecordOverrideByQueen() public {
        bytes memory payload = bytes('{"pause":true,"until":"2025-01-01T00:00:00Z"}');
        vm.prank(queenOperator);
        uint256 entryId = actionLog.record(alpha.nftId, "override", payload, "risk_limit");
        vm.snapshotGasLastCall("ActionLog", "record_queenOverride");

        assertEq(entryId, actionLog.entryCount());
    }

    function test_Gas_CastVote() public {
        vm.prank(alice);
        (, uint256 weight) = voting.castVote(proposalId, IWorkerVoting.Support.Yes, "agreed, slippage is too loose");
        vm.snapshotGasLastCall("WorkerVoting", "castVote");

        assertEq(weight, alpha.token.balanceOf(alice));
        assertEq(voting.getTally(proposalId).yesWeight, weight);
    }

    /// @dev A user's first deposit: the sweep deploys the forwarder, then moves native and stable.
    function test_Gas_SweepFirst() public {
        address[] memory tokens = _depositTokens();
        vm.prank(sweeper);
        address forwarder = depositFactory.sweep(NEW_DEPOSITOR, tokens);
        vm.snapshotGasLastCall("DepositForwarderFactory", "sweep_first");

        assertEq(stable.balanceOf(forwarder), 0);
        assertEq(forwarder.balance, 0);
    }

    /// @dev Later deposits: the forwarder is already deployed.
    function test_Gas_Sweep() public {
        address[] memory tokens = _depositTokens();
        vm.prank(sweeper);
        address forwarder = depositFactory.sweep(RETURNING_DEPOSITOR, tokens);
        vm.snapshotGasLastCall("DepositForwarderFactory", "sweep");

        assertEq(stable.balanceOf(forwarder), 0);
        assertEq(forwarder.balance, 0);
    }

    function _deposit(bytes32 salt) private {
        address forwarder = depositFactory.depositAddress(salt);
        stable.mint(forwarder, TRADE_STABLE);
        vm.deal(forwarder, 1 ether);
    }

    function _depositTokens() private view returns (address[] memory tokens) {
        tokens = new address[](1);
        tokens[0] = address(stable);
    }

    function _fundAndApprove(address account) private {
        stable.mint(account, TRADE_STABLE);
        vm.startPrank(account);
        stable.approve(address(alpha.pool), TRADE_STABLE);
        alpha.token.approve(address(alpha.pool), type(uint256).max);
        vm.stopPrank();
    }

    function _newWorkerConfig() private pure returns (IAgentRegistry.WorkerConfig memory config) {
        config.slippageCapBps = 50;
        config.mevProtection = IAgentRegistry.MevProtection.BatchAuction;
        config.signalSubscriptions = new string[](2);
        config.signalSubscriptions[0] = "price";
        config.signalSubscriptions[1] = "volume";
    }
}
