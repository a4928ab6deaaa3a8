import { defineConfig } from "vitest/config";

/**
 * Every TypeScript suite; the Solidity tests run on Hardhat's runner. One project per npm script
 * (`npm run test:<project>`); `npx vitest run` runs them all, one project after another (groupOrder).
 * Unit and contract tests run files in parallel on every core (vitest's default leaves one free:
 * on 2 CI cores that is one worker, 45 s for the unit tests against 33 s with two). The
 * integration projects start chains, servers and databases on free ports and run one file at a
 * time. No per-test or per-hook time limit, as under node:test: the suites bound their own waits
 * (readiness polls, request timeouts) and say what they waited for.
 */
const noTimeLimit = { testTimeout: 0, hookTimeout: 0 };
const parallel = { maxWorkers: "100%", ...noTimeLimit };
const oneFileAtATime = { fileParallelism: false, ...noTimeLimit };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["{agents,config,indexer,api,lib,mcp,relayer,exchange,scripts,support,web/server}/**/*.test.ts"],
          sequence: { groupOrder: 0 },
          ...parallel,
        },
      },
      {
        // The web app's logic (amounts, quote, order book, candles) and components, in a DOM.
        test: {
          name: "web",
          include: ["web/src/**/*.test.{ts,tsx}"],
          // Node by default (fast); component tests opt into a DOM with `// @vitest-environment happy-dom`.
          sequence: { groupOrder: 0 },
          ...parallel,
        },
      },
      {
        test: {
          name: "contracts",
          include: ["test/contracts/*.test.ts"],
          // Each test deploys on its own network.create() chain; sharing the module graph keeps one
          // Hardhat runtime per worker (as Hardhat's own runner does): 11 s instead of 22 s.
          isolate: false,
          sequence: { groupOrder: 1 },
          ...parallel,
        },
      },
      {
        test: {
          name: "exchange",
          include: ["test/exchange/*.test.ts"],
          sequence: { groupOrder: 2 },
          ...oneFileAtATime,
        },
      },
      {
        test: {
          name: "ecosystem",
          include: ["test/ecosystem/*.test.ts"],
          sequence: { groupOrder: 3 },
          ...oneFileAtATime,
        },
      },
      { test: { name: "start", include: ["test/start/*.test.ts"], sequence: { groupOrder: 4 }, ...oneFileAtATime } },
      // The web app in headless Chromium against `npm start` (README, "Tests": the browser suite).
      {
        test: { name: "browser", include: ["test/browser/*.test.ts"], sequence: { groupOrder: 5 }, ...oneFileAtATime },
      },
    ],
  },
});
