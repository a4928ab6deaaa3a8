// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title Booster
/// @notice Paid, time-limited promotion of an agent token; a higher tier number is a higher tier.
/// Anyone may boost any token. Paying for the active tier extends it from its current expiry. A
/// higher tier upgrades it: the time left is credited at the rate it was bought at (the cheapest,
/// if bought at several) and spent on the new tier at its list price, rounded down, then the new
/// tier's duration is added; so the expiry can come closer, but the boost keeps its value and no
/// sequence of boosts holds more tier time than it paid for at list prices. Time at a free tier is
/// worth nothing: upgrading into one keeps the seconds left, upgrading out of one carries none. A
/// lower tier while a higher one is active reverts with BoostDowngrade, whoever sends it. Once a
/// boost expired, any tier starts afresh from now.
interface IBooster {
    struct TierConfig {
        uint256 price;
        uint64 duration;
        bool enabled;
    }

    event Boosted(
        uint256 indexed agentNftId,
        address indexed token,
        address indexed buyer,
        uint8 tier,
        uint64 expiresAt,
        uint256 paid
    );
    event TierConfigured(uint8 indexed tier, uint256 price, uint64 duration, bool enabled);
    event TreasuryUpdated(address indexed previous, address indexed current);

    error UnknownTier(uint8 tier);
    error IncorrectPayment(uint256 sent, uint256 price);
    error InvalidAddress(address account);
    error InvalidDuration(uint64 duration);
    /// @notice Tier prices fit in 120 bits (about 1.3e18 whole native tokens).
    error InvalidPrice(uint256 price);
    /// @notice `requestedTier` is below the boost active until `activeUntil`.
    error BoostDowngrade(uint256 agentNftId, uint8 activeTier, uint8 requestedTier, uint64 activeUntil);

    /// @notice Boosts the agent token with NFT id `agentNftId` at `tier`; send exactly the tier's price.
    function boost(uint256 agentNftId, uint8 tier) external payable returns (uint64 expiresAt);

    /// @notice The expiry `boost(agentNftId, tier)` would set in this block; reverts as it would
    /// (unknown tier or agent, downgrade). For showing what an upgrade buys before paying for it.
    function quoteBoost(uint256 agentNftId, uint8 tier) external view returns (uint64 expiresAt);

    /// @notice Whether the token is boosted now, at which tier and until when (0, 0 if never).
    function boostOf(uint256 agentNftId) external view returns (bool active, uint8 tier, uint64 expiresAt);

    function tierConfig(uint8 tier) external view returns (TierConfig memory);

    function treasury() external view returns (address);
}
