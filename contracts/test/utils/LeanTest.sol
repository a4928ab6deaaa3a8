// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {TestBase} from "forge-std/Base.sol";
import {StdAssertions} from "forge-std/StdAssertions.sol";
import {StdInvariant} from "forge-std/StdInvariant.sol";
import {StdUtils} from "forge-std/StdUtils.sol";

/// @title forge-std's Test, minus what this suite does not use
/// @notice Same assertions, bound(), invariant targeting and `vm` as forge-std/Test.sol, without
/// StdCheats, StdChains, StdJson/StdToml and the console libraries.
/// @dev Why: Test.sol pulls about 650 KB of sources into every compilation (safeconsole.sol alone
/// is 427 KB). The npm solc 0.8.28 this project compiles with copies the whole standard-JSON input
/// onto its 5 MB wasm stack at 4 bytes per character, so a build whose input passes ~1.3 MB dies
/// with "RuntimeError: memory access out of bounds" (solidity#13966; upstream raised the stack to
/// 16 MB in solidity#15881). Importing forge-std piecemeal keeps a clean build far below the limit.
abstract contract LeanTest is TestBase, StdAssertions, StdInvariant, StdUtils {
    bool public IS_TEST = true;

    /// @dev StdCheats' makeAddr: same derivation, so addresses match forge-std's.
    function makeAddr(string memory name) internal returns (address addr) {
        addr = vm.addr(uint256(keccak256(abi.encodePacked(name))));
        vm.label(addr, name);
    }
}
