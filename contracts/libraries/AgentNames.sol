// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title Naming rules of the ecosystem
/// @notice Pure checks for token names and symbols and for action-log strings, shared by the
/// contracts that enforce them and by their fuzz tests.
library AgentNames {
    uint256 internal constant MAX_NAME_BYTES = 50;
    uint256 internal constant MIN_SYMBOL_LENGTH = 3;
    uint256 internal constant MAX_SYMBOL_LENGTH = 5;
    uint256 internal constant MAX_ACTION_TYPE_BYTES = 32;

    /// @notice True when `symbol` matches `[A-Z]{3,5}`.
    function isValidSymbol(string memory symbol) internal pure returns (bool) {
        bytes memory b = bytes(symbol);
        if (b.length < MIN_SYMBOL_LENGTH || b.length > MAX_SYMBOL_LENGTH) return false;
        for (uint256 i = 0; i < b.length; ++i) {
            if (b[i] < "A" || b[i] > "Z") return false;
        }
        return true;
    }

    /// @notice True when `name` is 1 to 50 bytes long.
    function isValidName(string memory name) internal pure returns (bool) {
        uint256 length = bytes(name).length;
        return length > 0 && length <= MAX_NAME_BYTES;
    }

    /// @notice True when `actionType` matches `[a-z0-9_]{1,32}` (so indexers can use it as a key).
    function isValidActionType(string memory actionType) internal pure returns (bool) {
        bytes memory b = bytes(actionType);
        if (b.length == 0 || b.length > MAX_ACTION_TYPE_BYTES) return false;
        for (uint256 i = 0; i < b.length; ++i) {
            bytes1 c = b[i];
            bool ok = (c >= "a" && c <= "z") || (c >= "0" && c <= "9") || c == "_";
            if (!ok) return false;
        }
        return true;
    }
}
