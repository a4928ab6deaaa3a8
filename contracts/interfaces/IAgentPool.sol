// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title Agent pool
/// @notice Constant-product AMM pairing one agent token with a pair asset (the stable token or the
/// wrapped native token). The pair side starts with a virtual reserve, so a freshly spawned pool
/// holding only agent tokens already quotes a price; only real pair-asset reserves can leave it.
/// Liquidity shares scale real and virtual reserves alike, so deposits move the price by rounding
/// dust only (under two base units of the pair asset).
interface IAgentPool {
    /// @notice A swap: `isBuy` means pair asset in, agent token out. `fee` is in the input asset.
    event Swap(
        address indexed sender,
        address indexed recipient,
        bool indexed isBuy,
        uint256 amountIn,
        uint256 amountOut,
        uint256 fee
    );
    /// @notice Reserves after every change; price = (reservePair + virtualPair) / reserveToken.
    event Sync(uint256 reserveToken, uint256 reservePair, uint256 virtualPair);
    /// @notice Liquidity added.
    event Mint(address indexed sender, address indexed to, uint256 amountToken, uint256 amountPair, uint256 shares);
    /// @notice Liquidity removed.
    event Burn(address indexed sender, address indexed to, uint256 amountToken, uint256 amountPair, uint256 shares);

    /// @notice Output below the caller's minimum.
    error SlippageExceeded(uint256 amountOut, uint256 minAmountOut);
    /// @notice The pool does not hold enough real reserves for this output.
    error InsufficientLiquidity(uint256 amountOut, uint256 available);
    /// @notice Required pair-asset deposit above the caller's maximum.
    error PairAmountExceeded(uint256 required, uint256 maxAmount);
    /// @notice Shares minted below the caller's minimum.
    error InsufficientShares(uint256 shares, uint256 minShares);
    /// @notice The caller holds fewer shares than it tries to burn.
    error InsufficientShareBalance(uint256 balance, uint256 requested);
    /// @notice Address not acceptable as a recipient.
    error InvalidRecipient(address recipient);
    /// @notice The pool was already initialized.
    error AlreadyInitialized();
    /// @notice `tokenIn` is neither of the pool's assets.
    error UnknownToken(address token);
    /// @notice The input is too small to buy a single base unit of the output.
    error ZeroOutput(uint256 amountIn);

    /// @notice Sets the pool up with the agent tokens it already holds as locked initial liquidity.
    function initialize(address token, address pairAsset, uint24 feePips, uint256 virtualPairReserve) external;

    /// @notice Exact-in swap: pulls `amountIn` of `tokenIn` from the caller, sends the other asset to `recipient`.
    /// @param minAmountOut Slippage guard: reverts with SlippageExceeded when the output is lower.
    function swapExactIn(address tokenIn, uint256 amountIn, uint256 minAmountOut, address recipient)
        external
        returns (uint256 amountOut);

    /// @notice Adds `amountToken` agent tokens and the matching pair-asset amount (at most `maxAmountPair`).
    function addLiquidity(uint256 amountToken, uint256 maxAmountPair, uint256 minShares, address to)
        external
        returns (uint256 shares, uint256 amountPair);

    /// @notice Burns `shares` of the caller for their part of the real reserves.
    function removeLiquidity(uint256 shares, uint256 minAmountToken, uint256 minAmountPair, address to)
        external
        returns (uint256 amountToken, uint256 amountPair);

    /// @notice Output of swapping `amountIn` of `tokenIn` now.
    function quote(address tokenIn, uint256 amountIn) external view returns (uint256 amountOut, uint256 fee);

    /// @notice Real agent-token reserve, real pair-asset reserve and virtual pair-asset reserve.
    function getReserves() external view returns (uint256 reserveToken, uint256 reservePair, uint256 virtualPair);

    /// @notice The agent token.
    function token() external view returns (address);

    /// @notice The pair asset.
    function pairAsset() external view returns (address);

    /// @notice Swap fee in pips (3000 = 0.30%).
    function feePips() external view returns (uint24);

    /// @notice Liquidity shares of `account`.
    function sharesOf(address account) external view returns (uint256);

    /// @notice All liquidity shares, including the locked initial ones.
    function totalShares() external view returns (uint256);
}
