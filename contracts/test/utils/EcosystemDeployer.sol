// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {CommonBase} from "forge-std/Base.sol";
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

/// @notice One boost tier as the deployment configures it.
struct BoostTierSetting {
    uint8 tier;
    uint256 price;
    uint64 duration;
}

/// @notice Mirror of `EcosystemSettings` in scripts/lib/deploy-ecosystem.ts.
struct EcosystemSettings {
    uint256 spawnFee;
    uint64 spawnCooldown;
    uint24 poolFeeTier;
    uint256 stableVirtualReserve;
    uint256 nativeVirtualReserve;
    uint64 votingDelay;
    uint64 votingPeriod;
    uint16 quorumBps;
    uint16 passingThresholdBps;
    BoostTierSetting[] boostTiers;
}

/// @notice Mirror of `EcosystemAccounts` in scripts/lib/deploy-ecosystem.ts.
struct EcosystemAccounts {
    address admin;
    address relayer;
    address workerOperator;
    address treasury;
    address hotWallet;
    address sweeper;
}

/// @notice Mirror of `ExternalAssets`: existing pair assets to use; address(0) deploys the mock.
struct ExternalAssets {
    address stableToken;
    address wrappedNative;
}

/// @notice Every contract the deployment creates.
struct Ecosystem {
    MockStableToken stableToken;
    WrappedNative wrappedNative;
    AgentRegistry registry;
    AgentToken tokenImplementation;
    AgentPool poolImplementation;
    AgentSpawner spawner;
    ActionLog actionLog;
    WorkerVoting voting;
    Booster booster;
    DepositForwarderFactory depositFactory;
}

/// @notice Role ids, spelled as the deployment script spells them (keccak256 of the role name)
/// rather than read from the contracts, so a renamed role constant breaks the wiring visibly.
library Roles {
    bytes32 internal constant DEFAULT_ADMIN = 0x00;
    bytes32 internal constant REGISTRAR = keccak256("REGISTRAR_ROLE");
    bytes32 internal constant MANAGER = keccak256("MANAGER_ROLE");
    bytes32 internal constant CONFIG = keccak256("CONFIG_ROLE");
    bytes32 internal constant ACTIVITY = keccak256("ACTIVITY_ROLE");
    bytes32 internal constant OVERRIDE = keccak256("OVERRIDE_ROLE");
    bytes32 internal constant RELAYER = keccak256("RELAYER_ROLE");
    bytes32 internal constant PROPOSER = keccak256("PROPOSER_ROLE");
    bytes32 internal constant SWEEPER = keccak256("SWEEPER_ROLE");
}

/// @title Solidity twin of scripts/lib/deploy-ecosystem.ts
/// @notice Deploys and wires the ecosystem the way `deployEcosystem` does (same order, same
/// constructor arguments, same role grants, same boost tiers), with every transaction sent by
/// the admin, so Solidity tests exercise the configuration that ships.
abstract contract EcosystemDeployer is CommonBase {
    /// @notice `DEFAULT_SETTINGS` of deploy-ecosystem.ts.
    function defaultSettings() internal pure returns (EcosystemSettings memory s) {
        s.spawnFee = 0.01 ether;
        s.spawnCooldown = 3600;
        s.poolFeeTier = 3000;
        s.stableVirtualReserve = 10_000 * 10 ** 6;
        s.nativeVirtualReserve = 5 ether;
        s.votingDelay = 1 days;
        s.votingPeriod = 3 days;
        s.quorumBps = 400;
        s.passingThresholdBps = 5000;
        s.boostTiers = new BoostTierSetting[](3);
        s.boostTiers[0] = BoostTierSetting({tier: 1, price: 0.01 ether, duration: 1 days});
        s.boostTiers[1] = BoostTierSetting({tier: 2, price: 0.05 ether, duration: 3 days});
        s.boostTiers[2] = BoostTierSetting({tier: 3, price: 0.1 ether, duration: 7 days});
    }

    function deployEcosystem(EcosystemAccounts memory accounts) internal returns (Ecosystem memory) {
        return deployEcosystem(accounts, defaultSettings());
    }

    function deployEcosystem(EcosystemAccounts memory accounts, EcosystemSettings memory settings)
        internal
        returns (Ecosystem memory)
    {
        return deployEcosystem(accounts, settings, ExternalAssets(address(0), address(0)));
    }

    function deployEcosystem(
        EcosystemAccounts memory accounts,
        EcosystemSettings memory settings,
        ExternalAssets memory assets
    ) internal returns (Ecosystem memory eco) {
        vm.startPrank(accounts.admin);
        eco.stableToken = assets.stableToken != address(0)
            ? MockStableToken(assets.stableToken)
            : new MockStableToken();
        eco.wrappedNative = assets.wrappedNative != address(0)
            ? WrappedNative(payable(assets.wrappedNative))
            : new WrappedNative();
        eco.registry = new AgentRegistry(accounts.admin);
        eco.tokenImplementation = new AgentToken();
        eco.poolImplementation = new AgentPool();
        eco.spawner = _deploySpawner(eco, accounts, settings);
        eco.actionLog = new ActionLog(eco.registry);
        eco.voting = new WorkerVoting(
            eco.registry,
            accounts.admin,
            settings.votingDelay,
            settings.votingPeriod,
            settings.quorumBps,
            settings.passingThresholdBps
        );
        eco.booster = new Booster(eco.registry, accounts.admin, accounts.treasury);
        eco.depositFactory = new DepositForwarderFactory(accounts.admin, accounts.hotWallet);
        _grantRoles(eco, accounts);
        _configureBoostTiers(eco.booster, settings.boostTiers);
        vm.stopPrank();
    }

    function _deploySpawner(Ecosystem memory eco, EcosystemAccounts memory accounts, EcosystemSettings memory s)
        private
        returns (AgentSpawner)
    {
        AgentSpawner.Settings memory initial = AgentSpawner.Settings({
            spawnFee: s.spawnFee,
            cooldown: s.spawnCooldown,
            feeTier: s.poolFeeTier,
            stableVirtualReserve: s.stableVirtualReserve,
            nativeVirtualReserve: s.nativeVirtualReserve,
            workerOperator: accounts.workerOperator
        });
        return new AgentSpawner(
            eco.registry,
            address(eco.tokenImplementation),
            address(eco.poolImplementation),
            address(eco.stableToken),
            address(eco.wrappedNative),
            accounts.admin,
            initial
        );
    }

    /// @dev Same grants, same order as the `grants` list of deploy-ecosystem.ts.
    function _grantRoles(Ecosystem memory eco, EcosystemAccounts memory accounts) private {
        eco.registry.grantRole(Roles.REGISTRAR, address(eco.spawner));
        eco.registry.grantRole(Roles.ACTIVITY, address(eco.actionLog));
        eco.registry.grantRole(Roles.OVERRIDE, address(eco.actionLog));
        eco.registry.grantRole(Roles.CONFIG, address(eco.voting));
        eco.registry.grantRole(Roles.CONFIG, accounts.admin);
        eco.registry.grantRole(Roles.MANAGER, accounts.admin);
        eco.spawner.grantRole(Roles.RELAYER, accounts.relayer);
        eco.registry.grantRole(Roles.RELAYER, accounts.relayer);
        eco.voting.grantRole(Roles.RELAYER, accounts.relayer);
        eco.voting.grantRole(Roles.PROPOSER, accounts.relayer);
        eco.depositFactory.grantRole(Roles.SWEEPER, accounts.sweeper);
    }

    function _configureBoostTiers(Booster booster, BoostTierSetting[] memory tiers) private {
        for (uint256 i = 0; i < tiers.length; ++i) {
            booster.configureTier(tiers[i].tier, tiers[i].price, tiers[i].duration, true);
        }
    }
}
