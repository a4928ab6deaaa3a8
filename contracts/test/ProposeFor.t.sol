// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {IAgentRegistry} from "../interfaces/IAgentRegistry.sol";
import {IAgentSpawner} from "../interfaces/IAgentSpawner.sol";
import {IWorkerVoting} from "../interfaces/IWorkerVoting.sol";
import {Roles} from "./utils/EcosystemDeployer.sol";
import {EcosystemTest, Spawned} from "./utils/EcosystemTest.sol";

/// @notice Issue 11: the API relays a holder's proposal. The proposer rules are the holder's,
/// never the relayer's (which also has the proposer role), and the proposal names the holder.
contract ProposeForTest is EcosystemTest {
    Spawned private alpha;

    function setUp() public override {
        super.setUp();
        alpha = _spawn(alice, "ALPHA", IAgentSpawner.PoolSide.STABLE);
        _buy(alpha.pool, alice, 2_000e6);
        vm.warp(block.timestamp + 1 hours);
    }

    function _config() private pure returns (IAgentRegistry.WorkerConfig memory config) {
        config.slippageCapBps = 75;
        config.mevProtection = IAgentRegistry.MevProtection.PrivateRelay;
        config.signalSubscriptions = new string[](1);
        config.signalSubscriptions[0] = "funding";
    }

    function test_TheRelayerProposesForAHolder() public {
        vm.prank(relayer);
        uint256 id = voting.proposeFor(alice, alpha.workerId, _config(), "relayed");
        IWorkerVoting.Proposal memory p = voting.getProposal(id);
        assertEq(p.proposer, alice);
        assertEq(p.workerId, alpha.workerId);
        assertEq(p.config.slippageCapBps, 75);
        assertEq(uint8(voting.state(id)), uint8(IWorkerVoting.ProposalState.Pending));
    }

    function test_RevertWhen_TheRelayedProposerHoldsNothing() public {
        // The relayer's own proposer role does not lend bob any weight.
        uint256 required = voting.MIN_WEIGHT();
        vm.prank(relayer);
        vm.expectRevert(abi.encodeWithSelector(IWorkerVoting.NoHoldings.selector, bob, 0, required));
        voting.proposeFor(bob, alpha.workerId, _config(), "no stake");
    }

    function test_RevertWhen_ANonRelayerProposesForSomeoneElse() public {
        vm.prank(alice);
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, alice, Roles.RELAYER)
        );
        voting.proposeFor(alice, alpha.workerId, _config(), "not a relayer");
    }

    function test_RevertWhen_TheRelayedProposerIsTheZeroAddress() public {
        vm.prank(relayer);
        vm.expectRevert(abi.encodeWithSelector(IWorkerVoting.InvalidAddress.selector, address(0)));
        voting.proposeFor(address(0), alpha.workerId, _config(), "nobody");
    }
}
