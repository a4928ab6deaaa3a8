// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {LeanTest} from "./utils/LeanTest.sol";
import {AgentNames} from "../libraries/AgentNames.sol";

contract AgentNamesTest is LeanTest {
    bytes private constant UPPERCASE = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    bytes private constant ACTION_CHARSET = "abcdefghijklmnopqrstuvwxyz0123456789_";
    /// @dev The bytes right outside each allowed range, where an off-by-one comparison would show.
    bytes private constant NEAR_MISSES = "@[`{/:^ \x00\x7f\x80\xff";

    // ---------------------------------------------------------------- symbols

    /// @dev Arbitrary bytes of length 0..8: each byte is either raw (almost always invalid) or,
    /// three times in four, forced into A-Z (two bits of `mask` per position), so valid and
    /// invalid symbols both show up often instead of valid ones once in a thousand runs.
    function testFuzz_IsValidSymbolMatchesReference(bytes32 seed, uint16 mask, uint256 length) public pure {
        length = bound(length, 0, 8);
        bytes memory symbol = new bytes(length);
        for (uint256 i = 0; i < length; ++i) {
            bool forceUpper = (mask >> (2 * i)) & 3 != 0;
            symbol[i] = forceUpper ? UPPERCASE[uint8(seed[i]) % UPPERCASE.length] : seed[i];
        }
        assertEq(AgentNames.isValidSymbol(string(symbol)), _referenceIsValidSymbol(symbol), string(symbol));
    }

    function testFuzz_SymbolWithOneNearMissByteIsInvalid(uint256 length, uint256 position, uint256 which)
        public
        pure
    {
        length = bound(length, AgentNames.MIN_SYMBOL_LENGTH, AgentNames.MAX_SYMBOL_LENGTH);
        bytes memory symbol = _repeat("Q", length);
        symbol[bound(position, 0, length - 1)] = NEAR_MISSES[bound(which, 0, NEAR_MISSES.length - 1)];
        assertFalse(AgentNames.isValidSymbol(string(symbol)));
    }

    function test_IsValidSymbolBoundaries() public pure {
        assertTrue(AgentNames.isValidSymbol("AAA"));
        assertTrue(AgentNames.isValidSymbol("ZZZZZ"));
        assertFalse(AgentNames.isValidSymbol(""));
        assertFalse(AgentNames.isValidSymbol("AB"));
        assertFalse(AgentNames.isValidSymbol("ABCDEF"));
        assertFalse(AgentNames.isValidSymbol("abc"));
        assertFalse(AgentNames.isValidSymbol("AB1"));
        assertFalse(AgentNames.isValidSymbol(unicode"ÄBC"));
    }

    // ------------------------------------------------------------------ names

    function testFuzz_IsValidNameLengthBounds(bytes32 seed, uint256 length) public pure {
        length = bound(length, 0, 2 * AgentNames.MAX_NAME_BYTES);
        bytes memory name = new bytes(length);
        // Content is irrelevant to the rule (even zero bytes are accepted); only length counts.
        for (uint256 i = 0; i < length; ++i) {
            name[i] = seed[i % 32];
        }
        assertEq(AgentNames.isValidName(string(name)), length >= 1 && length <= 50);
    }

    /// @dev The limit is in bytes, not characters: 25 two-byte characters fit, 26 do not.
    function test_IsValidNameCountsBytesNotCharacters() public pure {
        assertTrue(AgentNames.isValidName(string(_repeat(unicode"é", 25))));
        assertFalse(AgentNames.isValidName(string(_repeat(unicode"é", 26))));
    }

    // ----------------------------------------------------------- action types

    function testFuzz_IsValidActionTypeMatchesReference(bytes memory seed, uint16 mask, uint256 length) public pure {
        length = bound(length, 0, AgentNames.MAX_ACTION_TYPE_BYTES + 4);
        bytes memory actionType = new bytes(length);
        for (uint256 i = 0; i < length; ++i) {
            bytes1 raw = seed.length == 0 ? bytes1(0) : seed[i % seed.length];
            // Mostly inside the charset (as for symbols); positions past the mask's reach always
            // are, so long valid types occur too.
            bool forceCharset = i >= 8 || (mask >> (2 * i)) & 3 != 0;
            actionType[i] = forceCharset ? ACTION_CHARSET[uint8(raw) % ACTION_CHARSET.length] : raw;
        }
        bool expected = _referenceIsValidActionType(actionType);
        assertEq(AgentNames.isValidActionType(string(actionType)), expected, string(actionType));
    }

    function test_IsValidActionTypeBoundaries() public pure {
        assertTrue(AgentNames.isValidActionType("a"));
        assertTrue(AgentNames.isValidActionType("override"));
        assertTrue(AgentNames.isValidActionType("rebalance_v2"));
        assertTrue(AgentNames.isValidActionType("_0_9_z_"));
        assertTrue(AgentNames.isValidActionType(string(_repeat("x", 32))));
        assertFalse(AgentNames.isValidActionType(string(_repeat("x", 33))));
        assertFalse(AgentNames.isValidActionType(""));
        assertFalse(AgentNames.isValidActionType("Trade"));
        assertFalse(AgentNames.isValidActionType("take-profit"));
        assertFalse(AgentNames.isValidActionType("a b"));
        assertFalse(AgentNames.isValidActionType("a`"));
        assertFalse(AgentNames.isValidActionType("a{"));
        assertFalse(AgentNames.isValidActionType("a/"));
        assertFalse(AgentNames.isValidActionType("a:"));
        assertFalse(AgentNames.isValidActionType("a^"));
    }

    // ------------------------------------------------------------- references

    /// @dev Membership in an explicit alphabet rather than byte-range comparisons, so a wrong
    /// bound in the library cannot be mirrored here.
    function _referenceIsValidSymbol(bytes memory symbol) private pure returns (bool) {
        if (symbol.length < 3 || symbol.length > 5) return false;
        return _allIn(symbol, UPPERCASE);
    }

    function _referenceIsValidActionType(bytes memory actionType) private pure returns (bool) {
        if (actionType.length == 0 || actionType.length > 32) return false;
        return _allIn(actionType, ACTION_CHARSET);
    }

    function _allIn(bytes memory value, bytes memory alphabet) private pure returns (bool) {
        for (uint256 i = 0; i < value.length; ++i) {
            if (!_contains(alphabet, value[i])) return false;
        }
        return true;
    }

    function _contains(bytes memory alphabet, bytes1 c) private pure returns (bool) {
        for (uint256 j = 0; j < alphabet.length; ++j) {
            if (alphabet[j] == c) return true;
        }
        return false;
    }

    function _repeat(string memory unit, uint256 times) private pure returns (bytes memory out) {
        for (uint256 i = 0; i < times; ++i) {
            out = bytes.concat(out, bytes(unit));
        }
    }
}
