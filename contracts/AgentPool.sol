// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IAgentPool} from "./interfaces/IAgentPool.sol";
import {PoolMath} from "./libraries/PoolMath.sol";

/// @title Agent pool (clone implementation)
/// @notice See {IAgentPool}. Deployed once; every spawn makes a minimal-proxy clone of it.
contract AgentPool is IAgentPool, ReentrancyGuard {
    using SafeERC20 for IERC20;

    /// @dev Holder of the initial shares: nobody can ever withdraw the launch liquidity.
    address public constant LOCKED_SHARES_HOLDER = address(0xdead);

    address private _token;
    address private _pairAsset;
    uint24 private _feePips;
    uint256 private _reserveToken;
    uint256 private _reservePair;
    uint256 private _virtualPair;
    uint256 private _totalShares;
    mapping(address account => uint256) private _shares;

    /// @dev The implementation itself can never be initialized; only clones can.
    constructor() {
        _token = address(1);
    }

    /// @inheritdoc IAgentPool
    function initialize(address token_, address pairAsset_, uint24 feePips_, uint256 virtualPairReserve)
        external
    {
        if (_token != address(0)) revert AlreadyInitialized();
        if (feePips_ >= PoolMath.FEE_DENOMINATOR) revert PoolMath.InvalidFee(feePips_);
        _token = token_;
        _pairAsset = pairAsset_;
        _feePips = feePips_;
        uint256 seeded = IERC20(token_).balanceOf(address(this));
        if (seeded == 0 || virtualPairReserve == 0) revert PoolMath.EmptyReserves(seeded, virtualPairReserve);
        _reserveToken = seeded;
        _virtualPair = virtualPairReserve;
        _totalShares = seeded;
        _shares[LOCKED_SHARES_HOLDER] = seeded;
        emit Mint(msg.sender, LOCKED_SHARES_HOLDER, seeded, 0, seeded);
        emit Sync(seeded, 0, virtualPairReserve);
    }

    /// @inheritdoc IAgentPool
    function swapExactIn(address tokenIn, uint256 amountIn, uint256 minAmountOut, address recipient)
        external
        nonReentrant
        returns (uint256 amountOut)
    {
        if (recipient == address(0) || recipient == address(this)) revert InvalidRecipient(recipient);
        bool isBuy = _isBuy(tokenIn);
        uint256 fee;
        (amountOut, fee) = _quote(isBuy, amountIn);
        if (amountOut < minAmountOut) revert SlippageExceeded(amountOut, minAmountOut);
        if (isBuy) {
            _reservePair += amountIn;
            _reserveToken -= amountOut;
        } else {
            _reserveToken += amountIn;
            _reservePair -= amountOut;
        }
        emit Swap(msg.sender, recipient, isBuy, amountIn, amountOut, fee);
        emit Sync(_reserveToken, _reservePair, _virtualPair);
        IERC20(tokenIn).safeTransferFrom(msg.sender, address(this), amountIn);
        IERC20(isBuy ? _token : _pairAsset).safeTransfer(recipient, amountOut);
    }

    /// @inheritdoc IAgentPool
    function addLiquidity(uint256 amountToken, uint256 maxAmountPair, uint256 minShares, address to)
        external
        nonReentrant
        returns (uint256 shares, uint256 amountPair)
    {
        if (amountToken == 0) revert PoolMath.ZeroAmount();
        if (to == address(0) || to == address(this)) revert InvalidRecipient(to);
        uint256 reserveToken = _reserveToken;
        uint256 supply = _totalShares;
        shares = PoolMath.sharesFor(amountToken, reserveToken, supply);
        if (shares == 0 || shares < minShares) revert InsufficientShares(shares, minShares);
        amountPair = PoolMath.matchingDeposit(amountToken, reserveToken, _reservePair);
        if (amountPair > maxAmountPair) revert PairAmountExceeded(amountPair, maxAmountPair);
        // The virtual reserve grows with the shares so the price stays where it was.
        uint256 virtualAdded = PoolMath.shareOf(shares, _virtualPair, supply);
        _reserveToken = reserveToken + amountToken;
        _reservePair += amountPair;
        _virtualPair += virtualAdded;
        _totalShares = supply + shares;
        _shares[to] += shares;
        emit Mint(msg.sender, to, amountToken, amountPair, shares);
        emit Sync(_reserveToken, _reservePair, _virtualPair);
        IERC20(_token).safeTransferFrom(msg.sender, address(this), amountToken);
        if (amountPair > 0) IERC20(_pairAsset).safeTransferFrom(msg.sender, address(this), amountPair);
    }

    /// @inheritdoc IAgentPool
    function removeLiquidity(uint256 shares, uint256 minAmountToken, uint256 minAmountPair, address to)
        external
        nonReentrant
        returns (uint256 amountToken, uint256 amountPair)
    {
        if (shares == 0) revert PoolMath.ZeroAmount();
        if (to == address(0) || to == address(this)) revert InvalidRecipient(to);
        uint256 balance = _shares[msg.sender];
        if (balance < shares) revert InsufficientShareBalance(balance, shares);
        uint256 supply = _totalShares;
        amountToken = PoolMath.shareOf(shares, _reserveToken, supply);
        amountPair = PoolMath.shareOf(shares, _reservePair, supply);
        if (amountToken < minAmountToken) revert SlippageExceeded(amountToken, minAmountToken);
        if (amountPair < minAmountPair) revert SlippageExceeded(amountPair, minAmountPair);
        _virtualPair -= PoolMath.shareOfRoundingUp(shares, _virtualPair, supply);
        _shares[msg.sender] = balance - shares;
        _totalShares = supply - shares;
        _reserveToken -= amountToken;
        _reservePair -= amountPair;
        emit Burn(msg.sender, to, amountToken, amountPair, shares);
        emit Sync(_reserveToken, _reservePair, _virtualPair);
        if (amountToken > 0) IERC20(_token).safeTransfer(to, amountToken);
        if (amountPair > 0) IERC20(_pairAsset).safeTransfer(to, amountPair);
    }

    /// @inheritdoc IAgentPool
    function quote(address tokenIn, uint256 amountIn) external view returns (uint256 amountOut, uint256 fee) {
        return _quote(_isBuy(tokenIn), amountIn);
    }

    /// @inheritdoc IAgentPool
    function getReserves() external view returns (uint256, uint256, uint256) {
        return (_reserveToken, _reservePair, _virtualPair);
    }

    /// @inheritdoc IAgentPool
    function token() external view returns (address) {
        return _token;
    }

    /// @inheritdoc IAgentPool
    function pairAsset() external view returns (address) {
        return _pairAsset;
    }

    /// @inheritdoc IAgentPool
    function feePips() external view returns (uint24) {
        return _feePips;
    }

    /// @inheritdoc IAgentPool
    function sharesOf(address account) external view returns (uint256) {
        return _shares[account];
    }

    /// @inheritdoc IAgentPool
    function totalShares() external view returns (uint256) {
        return _totalShares;
    }

    function _isBuy(address tokenIn) private view returns (bool) {
        if (tokenIn == _pairAsset) return true;
        if (tokenIn == _token) return false;
        revert UnknownToken(tokenIn);
    }

    function _quote(bool isBuy, uint256 amountIn) private view returns (uint256 amountOut, uint256 fee) {
        uint256 effectivePair = _reservePair + _virtualPair;
        if (isBuy) {
            (amountOut, fee) = PoolMath.getAmountOut(amountIn, effectivePair, _reserveToken, _feePips);
        } else {
            (amountOut, fee) = PoolMath.getAmountOut(amountIn, _reserveToken, effectivePair, _feePips);
            // Only real pair-asset reserves can be paid out; the virtual part is price support.
            if (amountOut > _reservePair) revert InsufficientLiquidity(amountOut, _reservePair);
        }
        // A dust input would be swallowed whole by the rounded-up fee: refuse it, as Uniswap does.
        if (amountOut == 0) revert ZeroOutput(amountIn);
    }
}
