import { defineConfig } from "vitest/config";

/**
 * Every TypeScript suite; the Solidity tests run on Hardhat's runner. One project per npm script
 * (`npm run test:<project>`). Unit and contract tests run files in parallel; the integration
 * projects start chains, servers and databases on free ports and run one file at a time so two
 * CI cores are never shared by two of them. No per-test or per-hook time limit, as under node:test:
 * the suites bound their own waits (readiness polls, request timeouts) and say what they waited for.
 */
const integration = { fileParallelism: false, testTimeout: 0, hookTimeout: 0 };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["{config,indexer,api,lib,exchange,scripts,test/support}/**/*.test.ts"],
          testTimeout: 0,
          hookTimeout: 0,
        },
      },
      {
        test: {
          name: "contracts",
          include: ["test/contracts/*.test.ts"],
          // Each test deploys on its own network.create() chain; sharing the module graph keeps one
          // Hardhat runtime per worker (as Hardhat's own runner does): 11 s instead of 22 s.
          isolate: false,
          testTimeout: 0,
          hookTimeout: 0,
        },
      },
      { test: { name: "exchange", include: ["test/exchange/*.test.ts"], ...integration } },
      { test: { name: "ecosystem", include: ["test/ecosystem/*.test.ts"], ...integration } },
      { test: { name: "start", include: ["test/start/*.test.ts"], ...integration } },
    ],
  },
});
