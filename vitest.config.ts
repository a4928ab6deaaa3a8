import { defineConfig } from "vitest/config";

/**
 * Every TypeScript suite but the contract tests (`hardhat test nodejs`, see README "Tests").
 * `npm run test:<project>` runs one project. Unit tests run files in parallel; the integration
 * projects start chains, servers and databases on free ports and run one file at a time so two
 * CI cores are never shared by two of them. No per-test or per-hook time limit, as under node:test:
 * the suites bound their own waits (readiness polls, request timeouts) and report what they waited for.
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
      { test: { name: "exchange", include: ["test/exchange/*.test.ts"], ...integration } },
      { test: { name: "ecosystem", include: ["test/ecosystem/*.test.ts"], ...integration } },
      { test: { name: "start", include: ["test/start/*.test.ts"], ...integration } },
    ],
  },
});
