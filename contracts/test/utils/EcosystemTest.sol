// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {LeanTest} from "./LeanTest.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {MockStableToken} from "../../mocks/MockStableToken.sol";
import {WrappedNative} from "../../mocks/WrappedNative.sol";
import {AgentRegistry} from "../../AgentRegistry.sol";
import {AgentToken} from "../../AgentToken.sol";
import {AgentPool} from "../../AgentPool.sol";
import {AgentSpawner} from "../../AgentSpawner.sol";
import {ActionLog} from "../../ActionLog.sol";
import {WorkerVoting} from "../../WorkerVoting.sol";
import {Booster} from "../../Booster.sol";
import {DepositForwarderFactory} from "../../DepositForwarderFactory.sol";
import {IAgentSpawner} from "../../interfaces/IAgentSpawner.sol";
import {IAgentRegistry} from "../../interfaces/IAgentRegistry.sol";
import {Ecosystem, EcosystemAccounts, EcosystemDeployer} from "./EcosystemDeployer.sol";

/// @notice What a spawn returns, typed.
struct Spawned {
    AgentToken token;
    AgentPool pool;
    uint256 nftId;
    uint256 workerId;
}

/// @title Base of the ecosystem tests
/// @notice The deployed ecosystem with the wallets of test/contracts/fixtures.ts (admin, relayer,
/// worker operator, treasury, then users alice, bob, carol, dave, then the deposit factory's hot
/// wallet and sweeper) and the spawn and swap steps
/// most tests start from.
abstract contract EcosystemTest is LeanTest, EcosystemDeployer {
    address internal admin;
    address internal relayer;
    address internal operator;
    address internal treasury;
    address internal hotWallet;
    address internal sweeper;
    address internal alice;
    address internal bob;
    address internal carol;
    address internal dave;

    Ecosystem internal eco;
    MockStableToken internal stable;
    WrappedNative internal weth;
    AgentRegistry internal registry;
    AgentSpawner internal spawner;
    ActionLog internal actionLog;
    WorkerVoting internal voting;
    Booster internal booster;
    DepositForwarderFactory internal depositFactory;

    function setUp() public virtual {
        _deployDefaultEcosystem();
    }

    function _deployDefaultEcosystem() internal {
        admin = makeAddr("admin");
        relayer = makeAddr("relayer");
        operator = makeAddr("operator");
        treasury = makeAddr("treasury");
        hotWallet = makeAddr("hotWallet");
        sweeper = makeAddr("sweeper");
        alice = makeAddr("alice");
        bob = makeAddr("bob");
        carol = makeAddr("carol");
        dave = makeAddr("dave");
        eco = deployEcosystem(
            EcosystemAccounts({
                admin: admin,
                relayer: relayer,
                workerOperator: operator,
                treasury: treasury,
                hotWallet: hotWallet,
                sweeper: sweeper
            })
        );
        (stable, weth, registry, spawner) = (eco.stableToken, eco.wrappedNative, eco.registry, eco.spawner);
        (actionLog, voting, booster, depositFactory) = (eco.actionLog, eco.voting, eco.booster, eco.depositFactory);
    }

    // ---------------------------------------------------------------- spawning

    function _emptyMetadata() internal pure returns (IAgentRegistry.Metadata memory) {
        return IAgentRegistry.Metadata({description: "", logoUri: "", website: ""});
    }

    /// @dev Default supply, empty metadata, exact fee paid by `owner`.
    function _spawn(address owner, string memory symbol, IAgentSpawner.PoolSide side)
        internal
        returns (Spawned memory)
    {
        return _spawnWith(owner, string.concat(symbol, " Agent"), symbol, 0, side, _emptyMetadata());
    }

    function _spawnWith(
        address owner,
        string memory name,
        string memory symbol,
        uint256 totalSupply,
        IAgentSpawner.PoolSide side,
        IAgentRegistry.Metadata memory metadata
    ) internal returns (Spawned memory s) {
        uint256 fee = spawner.spawnFee();
        vm.deal(owner, owner.balance + fee);
        vm.prank(owner);
        (address token, address pool, uint256 nftId, uint256 workerId) =
            spawner.spawn{value: fee}(name, symbol, totalSupply, side, metadata);
        s = Spawned({token: AgentToken(token), pool: AgentPool(pool), nftId: nftId, workerId: workerId});
    }

    // ---------------------------------------------------------------- trading

    function _pairAsset(AgentPool pool) internal view returns (IERC20) {
        return IERC20(pool.pairAsset());
    }

    /// @dev Mints (mUSD) or wraps (WETH) `amount` of the pool's pair asset for `to`.
    function _fundPair(AgentPool pool, address to, uint256 amount) internal {
        if (pool.pairAsset() == address(stable)) {
            stable.mint(to, amount);
        } else {
            vm.deal(to, to.balance + amount);
            vm.prank(to);
            weth.deposit{value: amount}();
        }
    }

    function _buy(AgentPool pool, address buyer, uint256 amountIn) internal returns (uint256 amountOut) {
        _fundPair(pool, buyer, amountIn);
        IERC20 pair = _pairAsset(pool);
        vm.startPrank(buyer);
        pair.approve(address(pool), amountIn);
        amountOut = pool.swapExactIn(address(pair), amountIn, 0, buyer);
        vm.stopPrank();
    }

    function _sell(AgentPool pool, address seller, uint256 amountIn) internal returns (uint256 amountOut) {
        vm.startPrank(seller);
        IERC20(pool.token()).approve(address(pool), amountIn);
        amountOut = pool.swapExactIn(pool.token(), amountIn, 0, seller);
        vm.stopPrank();
    }

    /// @dev The constant-product invariant the pool quotes against: real token reserve times
    /// real plus virtual pair reserve.
    function _effectiveK(AgentPool pool) internal view returns (uint256) {
        (uint256 reserveToken, uint256 reservePair, uint256 virtualPair) = pool.getReserves();
        return reserveToken * (reservePair + virtualPair);
    }
}
