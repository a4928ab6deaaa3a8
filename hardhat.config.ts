import { createRequire } from "node:module";
import { defineConfig } from "hardhat/config";
import hardhatViem from "@nomicfoundation/hardhat-viem";
import hardhatViemAssertions from "@nomicfoundation/hardhat-viem-assertions";
import hardhatNetworkHelpers from "@nomicfoundation/hardhat-network-helpers";
import { demoInitialDate } from "./scripts/lib/demo-clock.ts";

const require = createRequire(import.meta.url);

// Hardhat cannot download compilers on this network: the npm `solc` package,
// pinned to exactly this version, provides the compiler (see package.json).
const SOLC_VERSION = "0.8.28";

// Fuzz and invariant runs are seeded so a failure reproduces; override with
// FUZZ_SEED to explore (npm run test:contracts prints the seed in use).
const FUZZ_SEED = process.env.FUZZ_SEED ?? "0x5eed";

export default defineConfig({
  plugins: [hardhatViem, hardhatViemAssertions, hardhatNetworkHelpers],
  solidity: {
    version: SOLC_VERSION,
    path: require.resolve("solc/soljson.js"),
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: "cancun",
    },
  },
  paths: {
    // The TypeScript contract tests (test/contracts) run on vitest: see vitest.config.ts.
    tests: { solidity: "contracts/test" },
  },
  test: {
    solidity: {
      fuzz: { runs: 256, seed: FUZZ_SEED },
      invariant: { runs: 64, depth: 40, failOnRevert: false },
    },
  },
  networks: {
    // The local node of `npm start` (`hardhat node --network demo`): its clock starts days in the
    // past, so the demo seed's history ends at the wall clock (scripts/lib/demo-clock.ts). Blocks
    // step at least a second each: under a burst of transactions the chain runs ahead of the wall
    // clock and comes back once blocks are slower than one a second. Blocks sharing a second
    // (allowBlocksWithSameTimestamp) were tried and dropped: gas estimated in a block of the same
    // second as the last write (an unchanged storage slot, 100 gas) ran out in the next second's
    // block (2,900), and the seed's ActionLog.record reverted out of gas.
    demo: { type: "edr-simulated", initialDate: demoInitialDate() },
    // Any chain: RPC_URL, signed by DEPLOYER_PRIVATE_KEY; without a key, the node's unlocked
    // accounts (a local Hardhat node started by `npm start`).
    rpc: {
      type: "http",
      chainType: "l1",
      url: process.env.RPC_URL || "http://127.0.0.1:8545",
      accounts: process.env.DEPLOYER_PRIVATE_KEY ? [process.env.DEPLOYER_PRIVATE_KEY] : "remote",
    },
  },
});
