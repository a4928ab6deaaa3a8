// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title Booster
/// @notice Paid, time-limited promotion of an agent token. Paying for the tier a token already
/// has extends its boost; paying for another tier replaces it from now on.
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

    /// @notice Boosts the agent token with NFT id `agentNftId` at `tier`; send exactly the tier's price.
    function boost(uint256 agentNftId, uint8 tier) external payable returns (uint64 expiresAt);

    /// @notice Whether the token is boosted now, at which tier and until when (0, 0 if never).
    function boostOf(uint256 agentNftId) external view returns (bool active, uint8 tier, uint64 expiresAt);

    function tierConfig(uint8 tier) external view returns (TierConfig memory);

    function treasury() external view returns (address);
}
