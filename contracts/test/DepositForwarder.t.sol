// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {Vm} from "forge-std/Vm.sol";
import {DepositForwarderFactory} from "../DepositForwarderFactory.sol";
import {IAgentSpawner} from "../interfaces/IAgentSpawner.sol";
import {IDepositForwarder} from "../interfaces/IDepositForwarder.sol";
import {IDepositForwarderFactory} from "../interfaces/IDepositForwarderFactory.sol";
import {Roles} from "./utils/EcosystemDeployer.sol";
import {EcosystemTest, Spawned} from "./utils/EcosystemTest.sol";

/// @notice Issue 27: per-user counterfactual deposit addresses. Deposits arrive before anything
/// is deployed there, a sweep deploys the forwarder at the predicted address and moves every
/// balance to the hot wallet, and nobody can move funds anywhere else.
contract DepositForwarderTest is EcosystemTest {
    bytes32 private constant SALT = keccak256("user-42");

    address private attacker;
    address private forwarder;

    function setUp() public override {
        super.setUp();
        attacker = makeAddr("attacker");
        forwarder = depositFactory.depositAddress(SALT);
    }

    // ------------------------------------------------------------ addresses

    /// @dev The address is CREATE2 of an EIP-1167 proxy, computed here from first principles, the
    /// way the exchange computes it off-chain.
    function test_TheDepositAddressIsTheCreate2AddressOfAMinimalProxy() public view {
        address implementation = depositFactory.forwarderImplementation();
        bytes memory initCode = abi.encodePacked(
            hex"3d602d80600a3d3981f3363d3d373d3d3d363d73", implementation, hex"5af43d82803e903d91602b57fd5bf3"
        );
        bytes32 hash = keccak256(abi.encodePacked(bytes1(0xff), address(depositFactory), SALT, keccak256(initCode)));
        assertEq(forwarder, address(uint160(uint256(hash))));
        assertEq(forwarder, Clones.predictDeterministicAddress(implementation, SALT, address(depositFactory)));
        assertEq(IDepositForwarder(implementation).factory(), address(depositFactory));
    }

    function test_PredictionEqualsDeployment() public {
        assertEq(forwarder.code.length, 0);
        assertFalse(depositFactory.isDeployed(SALT));

        vm.expectEmit(address(depositFactory));
        emit IDepositForwarderFactory.ForwarderDeployed(SALT, forwarder);
        vm.prank(sweeper);
        address swept = depositFactory.sweep(SALT, new address[](0));

        assertEq(swept, forwarder);
        assertGt(forwarder.code.length, 0);
        assertTrue(depositFactory.isDeployed(SALT));
        assertEq(IDepositForwarder(forwarder).factory(), address(depositFactory));
    }

    // ------------------------------------------------------------ sweeping

    function test_DepositsMadeBeforeDeploymentAreSwept() public {
        stable.mint(alice, 500e6);
        vm.deal(alice, 3 ether);
        vm.startPrank(alice);
        stable.transfer(forwarder, 500e6);
        weth.deposit{value: 1 ether}();
        weth.transfer(forwarder, 1 ether);
        _pay(forwarder, 2 ether);
        vm.stopPrank();
        assertEq(forwarder.code.length, 0, "deposits need no code at the address");

        vm.expectEmit(address(depositFactory));
        emit IDepositForwarderFactory.ForwarderDeployed(SALT, forwarder);
        vm.expectEmit(address(depositFactory));
        emit IDepositForwarderFactory.Swept(SALT, forwarder, address(0), 2 ether);
        vm.expectEmit(address(depositFactory));
        emit IDepositForwarderFactory.Swept(SALT, forwarder, address(stable), 500e6);
        vm.expectEmit(address(depositFactory));
        emit IDepositForwarderFactory.Swept(SALT, forwarder, address(weth), 1 ether);
        _sweep(SALT, _tokens(address(stable), address(weth)));

        assertEq(hotWallet.balance, 2 ether);
        assertEq(stable.balanceOf(hotWallet), 500e6);
        assertEq(weth.balanceOf(hotWallet), 1 ether);
        _assertEmpty(forwarder);
        assertEq(address(depositFactory).balance, 0, "the factory never holds funds");
    }

    function test_ASecondSweepAfterMoreDepositsSweepsThem() public {
        stable.mint(forwarder, 100e6);
        _sweep(SALT, _tokens(address(stable), address(weth)));

        // The deployed forwarder takes plain transfers as the empty address did.
        stable.mint(alice, 250e6);
        vm.deal(alice, 1 ether);
        vm.startPrank(alice);
        stable.transfer(forwarder, 250e6);
        _pay(forwarder, 1 ether);
        vm.stopPrank();

        vm.recordLogs();
        _sweep(SALT, _tokens(address(stable), address(weth)));
        Vm.Log[] memory logs = vm.getRecordedLogs();

        assertEq(stable.balanceOf(hotWallet), 350e6);
        assertEq(hotWallet.balance, 1 ether);
        _assertEmpty(forwarder);
        // Native, then stable; no deployment and nothing for the empty weth balance.
        uint256 swept;
        for (uint256 i = 0; i < logs.length; ++i) {
            if (logs[i].emitter != address(depositFactory)) continue;
            assertEq(logs[i].topics[0], IDepositForwarderFactory.Swept.selector, "only Swept events");
            ++swept;
        }
        assertEq(swept, 2);
    }

    /// @dev A listed agent token (18 decimals, delegating on receipt) is an ordinary ERC-20 here.
    function test_AnAgentTokenDepositIsSwept() public {
        Spawned memory alpha = _spawn(alice, "ALPHA", IAgentSpawner.PoolSide.STABLE);
        uint256 bought = _buy(alpha.pool, bob, 1_000e6);
        vm.prank(bob);
        alpha.token.transfer(forwarder, bought);

        vm.expectEmit(address(depositFactory));
        emit IDepositForwarderFactory.Swept(SALT, forwarder, address(alpha.token), bought);
        _sweep(SALT, _tokens(address(alpha.token), address(stable)));

        assertEq(alpha.token.balanceOf(hotWallet), bought);
        assertEq(alpha.token.balanceOf(forwarder), 0);
    }

    function test_SweepingAnEmptyAddressMovesNothing() public {
        vm.recordLogs();
        _sweep(SALT, _tokens(address(stable), address(weth)));
        Vm.Log[] memory logs = vm.getRecordedLogs();
        for (uint256 i = 0; i < logs.length; ++i) {
            assertTrue(logs[i].topics[0] != IDepositForwarderFactory.Swept.selector, "swept nothing");
        }
        assertTrue(depositFactory.isDeployed(SALT));
    }

    function test_RotatingTheHotWalletKeepsEveryDepositAddress() public {
        address coldStorage = makeAddr("newHotWallet");
        vm.expectEmit(address(depositFactory));
        emit IDepositForwarderFactory.HotWalletUpdated(hotWallet, coldStorage);
        vm.prank(admin);
        depositFactory.setHotWallet(coldStorage);

        assertEq(depositFactory.depositAddress(SALT), forwarder);
        stable.mint(forwarder, 7e6);
        _sweep(SALT, _tokens(address(stable), address(weth)));
        assertEq(stable.balanceOf(coldStorage), 7e6);
        assertEq(stable.balanceOf(hotWallet), 0);
    }

    // ------------------------------------------------------------ attacks

    function test_RevertWhen_AnyoneButTheSweeperSweeps() public {
        stable.mint(forwarder, 1e6);
        address[2] memory outsiders = [attacker, admin];
        for (uint256 i = 0; i < outsiders.length; ++i) {
            vm.prank(outsiders[i]);
            vm.expectRevert(
                abi.encodeWithSelector(
                    IAccessControl.AccessControlUnauthorizedAccount.selector, outsiders[i], Roles.SWEEPER
                )
            );
            depositFactory.sweep(SALT, _tokens(address(stable), address(weth)));
        }
        assertEq(stable.balanceOf(forwarder), 1e6);
    }

    function test_RevertWhen_AnAttackerRedirectsTheHotWallet() public {
        vm.prank(attacker);
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, attacker, Roles.DEFAULT_ADMIN)
        );
        depositFactory.setHotWallet(attacker);

        vm.prank(admin);
        vm.expectRevert(abi.encodeWithSelector(IDepositForwarderFactory.InvalidAddress.selector, address(0)));
        depositFactory.setHotWallet(address(0));
        assertEq(depositFactory.hotWallet(), hotWallet);
    }

    /// @dev Only the factory flushes, and it names no destination: there is none to pass.
    function test_RevertWhen_AnyoneButTheFactoryFlushesAForwarder() public {
        _sweep(SALT, new address[](0));
        stable.mint(forwarder, 1e6);
        vm.deal(forwarder, 1 ether);
        address[2] memory callers = [attacker, sweeper];
        for (uint256 i = 0; i < callers.length; ++i) {
            vm.prank(callers[i]);
            vm.expectRevert(abi.encodeWithSelector(IDepositForwarder.NotFactory.selector, callers[i]));
            IDepositForwarder(forwarder).flush(_tokens(address(stable), address(weth)));
        }
        // Nor the implementation, nor a clone of it the attacker deploys himself.
        address implementation = depositFactory.forwarderImplementation();
        vm.startPrank(attacker);
        address own = Clones.clone(implementation);
        vm.expectRevert(abi.encodeWithSelector(IDepositForwarder.NotFactory.selector, attacker));
        IDepositForwarder(implementation).flush(new address[](0));
        vm.expectRevert(abi.encodeWithSelector(IDepositForwarder.NotFactory.selector, attacker));
        IDepositForwarder(own).flush(new address[](0));
        vm.stopPrank();
        assertEq(stable.balanceOf(forwarder), 1e6);
        assertEq(forwarder.balance, 1 ether);
    }

    /// @dev No initializer, no storage: an attacker has nothing to (re-)initialise, whether the
    /// forwarder is deployed or not, and the factory is an immutable of the implementation's code.
    function test_AForwarderCannotBeInitialised() public {
        _sweep(SALT, new address[](0));
        bytes[3] memory calls = [
            abi.encodeWithSignature("initialize(address)", attacker),
            abi.encodeWithSignature("initialize(address,address)", attacker, attacker),
            abi.encodeWithSignature("setFactory(address)", attacker)
        ];
        address implementation = depositFactory.forwarderImplementation();
        for (uint256 i = 0; i < calls.length; ++i) {
            vm.prank(attacker);
            (bool okForwarder,) = forwarder.call(calls[i]);
            vm.prank(attacker);
            (bool okImplementation,) = implementation.call(calls[i]);
            assertFalse(okForwarder);
            assertFalse(okImplementation);
        }
        assertEq(vm.load(forwarder, bytes32(0)), bytes32(0), "the forwarder keeps no storage");
        assertEq(IDepositForwarder(forwarder).factory(), address(depositFactory));
    }

    /// @dev A sweep for the same salt from another factory lands elsewhere: only this factory
    /// can put code at a deposit address it predicts.
    function test_AnotherFactoryCannotDeployAtTheDepositAddress() public {
        vm.prank(attacker);
        DepositForwarderFactory rogue = new DepositForwarderFactory(attacker, attacker);
        assertTrue(rogue.depositAddress(SALT) != forwarder);
    }

    function test_RevertWhen_AListedTokenHasNoCode() public {
        address[] memory listed = _tokens(address(stable), address(0));
        vm.prank(sweeper);
        vm.expectRevert(abi.encodeWithSelector(IDepositForwarder.NotAToken.selector, address(0)));
        depositFactory.sweep(SALT, listed);

        listed[1] = alice;
        vm.prank(sweeper);
        vm.expectRevert(abi.encodeWithSelector(IDepositForwarder.NotAToken.selector, alice));
        depositFactory.sweep(SALT, listed);
    }

    function test_RevertWhen_TheFactoryIsMadeWithoutAdminOrHotWallet() public {
        vm.expectRevert(abi.encodeWithSelector(IDepositForwarderFactory.InvalidAddress.selector, address(0)));
        new DepositForwarderFactory(address(0), hotWallet);
        vm.expectRevert(abi.encodeWithSelector(IDepositForwarderFactory.InvalidAddress.selector, address(0)));
        new DepositForwarderFactory(admin, address(0));
    }

    // ------------------------------------------------------------ fuzz

    function testFuzz_ASweepMovesEveryBalanceToTheHotWallet(
        bytes32 salt,
        uint256 nativeAmount,
        uint256 stableAmount,
        uint256 wethAmount
    ) public {
        nativeAmount = bound(nativeAmount, 0, 1e30);
        stableAmount = bound(stableAmount, 0, 1e30);
        wethAmount = bound(wethAmount, 0, 1e30);
        address deposit = depositFactory.depositAddress(salt);
        vm.assume(deposit.code.length == 0 && deposit.balance == 0);

        stable.mint(deposit, stableAmount);
        vm.deal(alice, nativeAmount + wethAmount);
        vm.startPrank(alice);
        weth.deposit{value: wethAmount}();
        weth.transfer(deposit, wethAmount);
        _pay(deposit, nativeAmount);
        vm.stopPrank();

        address swept = _sweep(salt, _tokens(address(stable), address(weth)));

        assertEq(swept, deposit, "deployed where predicted");
        assertEq(hotWallet.balance, nativeAmount);
        assertEq(stable.balanceOf(hotWallet), stableAmount);
        assertEq(weth.balanceOf(hotWallet), wethAmount);
        _assertEmpty(deposit);
    }

    /// @dev Two users never share an address, and sweeping one leaves the other's deposit alone.
    function testFuzz_SaltsAreIsolated(bytes32 saltA, bytes32 saltB, uint256 amountA, uint256 amountB) public {
        vm.assume(saltA != saltB);
        amountA = bound(amountA, 1, 1e30);
        amountB = bound(amountB, 1, 1e30);
        address a = depositFactory.depositAddress(saltA);
        address b = depositFactory.depositAddress(saltB);
        assertTrue(a != b);
        stable.mint(a, amountA);
        stable.mint(b, amountB);

        _sweep(saltA, _tokens(address(stable), address(weth)));

        assertEq(stable.balanceOf(hotWallet), amountA);
        assertEq(stable.balanceOf(b), amountB);
        assertFalse(depositFactory.isDeployed(saltB));
    }

    // ------------------------------------------------------------ helpers

    function _sweep(bytes32 salt, address[] memory tokens) private returns (address) {
        vm.prank(sweeper);
        return depositFactory.sweep(salt, tokens);
    }

    function _pay(address to, uint256 amount) private {
        (bool ok,) = payable(to).call{value: amount}("");
        assertTrue(ok, "plain native transfer refused");
    }

    function _tokens(address first, address second) private pure returns (address[] memory tokens) {
        tokens = new address[](2);
        (tokens[0], tokens[1]) = (first, second);
    }

    function _assertEmpty(address account) private view {
        assertEq(account.balance, 0, "native left behind");
        assertEq(stable.balanceOf(account), 0, "stable left behind");
        assertEq(weth.balanceOf(account), 0, "weth left behind");
    }
}
