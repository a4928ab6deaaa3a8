// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {IBooster} from "./interfaces/IBooster.sol";
import {IAgentRegistry} from "./interfaces/IAgentRegistry.sol";

/// @title Booster
/// @notice See {IBooster}. Payments go straight to the treasury: the contract never holds funds.
contract Booster is IBooster, AccessControl {
    struct BoostState {
        uint8 tier;
        uint64 expiresAt;
    }

    IAgentRegistry private immutable _registry;
    address private _treasury;
    mapping(uint8 tier => TierConfig) private _tiers;
    mapping(uint256 agentNftId => BoostState) private _boosts;

    constructor(IAgentRegistry registry_, address admin, address treasury_) {
        if (address(registry_) == address(0)) revert InvalidAddress(address(registry_));
        if (admin == address(0)) revert InvalidAddress(admin);
        _registry = registry_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _setTreasury(treasury_);
    }

    /// @inheritdoc IBooster
    function boost(uint256 agentNftId, uint8 tier) external payable returns (uint64 expiresAt) {
        address token = _registry.tokenOfAgent(agentNftId);
        TierConfig memory config = _tiers[tier];
        if (!config.enabled) revert UnknownTier(tier);
        if (msg.value != config.price) revert IncorrectPayment(msg.value, config.price);
        BoostState storage current = _boosts[agentNftId];
        uint64 nowTs = uint64(block.timestamp);
        bool active = current.expiresAt > nowTs;
        // Someone paid for the active boost: nobody may lower its tier or cut its time.
        if (active && tier < current.tier) revert BoostDowngrade(agentNftId, current.tier, tier, current.expiresAt);
        if (active && tier == current.tier) {
            expiresAt = current.expiresAt + config.duration;
        } else {
            expiresAt = nowTs + config.duration;
            // An upgrade keeps at least the time already paid for, now at the higher tier.
            if (active && current.expiresAt > expiresAt) expiresAt = current.expiresAt;
        }
        current.tier = tier;
        current.expiresAt = expiresAt;
        emit Boosted(agentNftId, token, msg.sender, tier, expiresAt, msg.value);
        if (msg.value > 0) Address.sendValue(payable(_treasury), msg.value);
    }

    /// @notice Prices, durations and availability of a tier (1 and up).
    function configureTier(uint8 tier, uint256 price, uint64 duration, bool enabled)
        external
        onlyRole(DEFAULT_ADMIN_ROLE)
    {
        if (tier == 0) revert UnknownTier(tier);
        if (duration == 0) revert InvalidDuration(duration);
        _tiers[tier] = TierConfig({price: price, duration: duration, enabled: enabled});
        emit TierConfigured(tier, price, duration, enabled);
    }

    /// @notice Where boost payments go.
    function setTreasury(address treasury_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setTreasury(treasury_);
    }

    /// @inheritdoc IBooster
    function boostOf(uint256 agentNftId) external view returns (bool active, uint8 tier, uint64 expiresAt) {
        BoostState memory state = _boosts[agentNftId];
        return (state.expiresAt > block.timestamp, state.tier, state.expiresAt);
    }

    /// @inheritdoc IBooster
    function tierConfig(uint8 tier) external view returns (TierConfig memory) {
        return _tiers[tier];
    }

    /// @inheritdoc IBooster
    function treasury() external view returns (address) {
        return _treasury;
    }

    function _setTreasury(address treasury_) private {
        if (treasury_ == address(0)) revert InvalidAddress(treasury_);
        address previous = _treasury;
        _treasury = treasury_;
        emit TreasuryUpdated(previous, treasury_);
    }
}
