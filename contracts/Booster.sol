// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {IBooster} from "./interfaces/IBooster.sol";
import {IAgentRegistry} from "./interfaces/IAgentRegistry.sol";
import {BoostPricing} from "./libraries/BoostPricing.sol";

/// @title Booster
/// @notice See {IBooster}. Payments go straight to the treasury: the contract never holds funds.
contract Booster is IBooster, AccessControl {
    struct BoostState {
        uint8 tier;
        uint64 expiresAt;
        // What the time left is worth to an upgrade: `creditPrice` per `creditDuration`, the
        // cheapest list rate any of it was bought at (time bought in a sale stays sale-priced).
        uint64 creditDuration;
        uint120 creditPrice;
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
        TierConfig memory config = _enabledTier(tier);
        if (msg.value != config.price) revert IncorrectPayment(msg.value, config.price);
        BoostPricing.Rate memory credit;
        (expiresAt, credit) = _next(agentNftId, _boosts[agentNftId], tier, config);
        _boosts[agentNftId] = BoostState({
            tier: tier,
            expiresAt: expiresAt,
            creditDuration: credit.duration,
            creditPrice: credit.price
        });
        emit Boosted(agentNftId, token, msg.sender, tier, expiresAt, msg.value);
        if (msg.value > 0) Address.sendValue(payable(_treasury), msg.value);
    }

    /// @inheritdoc IBooster
    function quoteBoost(uint256 agentNftId, uint8 tier) external view returns (uint64 expiresAt) {
        _registry.tokenOfAgent(agentNftId);
        (expiresAt,) = _next(agentNftId, _boosts[agentNftId], tier, _enabledTier(tier));
    }

    /// @notice Prices, durations and availability of a tier (1 and up). A new price applies to
    /// boosts bought from now on: time already bought keeps the rate it was bought at.
    function configureTier(uint8 tier, uint256 price, uint64 duration, bool enabled)
        external
        onlyRole(DEFAULT_ADMIN_ROLE)
    {
        if (tier == 0) revert UnknownTier(tier);
        if (duration == 0) revert InvalidDuration(duration);
        if (price > type(uint120).max) revert InvalidPrice(price);
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

    function _enabledTier(uint8 tier) private view returns (TierConfig memory config) {
        config = _tiers[tier];
        if (!config.enabled) revert UnknownTier(tier);
    }

    /// @return expiresAt When the boost ends after buying `config` at `tier` now.
    /// @return credit The rate its time left is worth from then on.
    function _next(uint256 agentNftId, BoostState memory current, uint8 tier, TierConfig memory config)
        private
        view
        returns (uint64 expiresAt, BoostPricing.Rate memory credit)
    {
        // configureTier keeps prices within 120 bits.
        BoostPricing.Rate memory bought = BoostPricing.Rate(uint120(config.price), config.duration);
        uint256 nowTs = block.timestamp;
        if (current.expiresAt <= nowTs) return (SafeCast.toUint64(nowTs + config.duration), bought);
        // Someone paid for the active boost: nobody may lower its tier.
        if (tier < current.tier) revert BoostDowngrade(agentNftId, current.tier, tier, current.expiresAt);
        BoostPricing.Rate memory held = BoostPricing.Rate(current.creditPrice, current.creditDuration);
        if (tier == current.tier) {
            // Extending adds the tier's duration; should the price have changed since, the credit
            // takes the cheaper rate, so a later upgrade never values time above what it cost.
            uint256 extended = uint256(current.expiresAt) + config.duration;
            return (SafeCast.toUint64(extended), BoostPricing.cheaper(held, bought));
        }
        // An upgrade spends the time left, valued at the rate it was bought at, on the new tier at
        // its list price (rounded down), then adds the time just bought. Keeping the seconds as they
        // were sold sixty tier-1 days (0.6) plus a tier-3 boost (0.1) as sixty days of tier 3,
        // which list at 0.857.
        uint256 carried = BoostPricing.convert(current.expiresAt - uint64(nowTs), held, bought);
        return (SafeCast.toUint64(nowTs + carried + config.duration), bought);
    }

    function _setTreasury(address treasury_) private {
        if (treasury_ == address(0)) revert InvalidAddress(treasury_);
        address previous = _treasury;
        _treasury = treasury_;
        emit TreasuryUpdated(previous, treasury_);
    }
}
