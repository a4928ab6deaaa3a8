/**
 * Import boundaries, checked by `npm run lint` (depcruise). Each rule names what it protects;
 * see README "Layout". Test files, fixtures and test support may import anything but each other's
 * cycles; production code may not import tooling (scripts/) or test code.
 */
// Tests: suites in test/<area>/ and *.test.ts beside the code; the support that tests and
// benchmarks share (processes, ports, waits, fixtures, the signing client) in support/.
const TEST = "(^test/|^support/|\\.test\\.ts$)";
const RUNTIME = "^(agents|api|config|exchange|indexer|lib|mcp|relayer|src|web/server)/";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import cycle makes load order matter and layers meaningless.",
      from: {},
      to: { circular: true },
    },
    {
      name: "runtime-not-to-scripts",
      severity: "error",
      comment: "Services never import the tooling in scripts/ (start-up, deploy, benchmarks).",
      from: { path: RUNTIME, pathNot: TEST },
      to: { path: "^scripts/" },
    },
    {
      name: "runtime-not-to-tests",
      severity: "error",
      comment: "Production code never imports tests, fixtures or test support.",
      from: { path: RUNTIME, pathNot: TEST },
      to: { path: TEST },
    },
    {
      name: "bench-not-to-tests",
      severity: "error",
      comment:
        "Benchmarks share support/ with the tests, never the suites in test/: a benchmark must not break when a test file moves.",
      from: { path: "^scripts/bench/" },
      to: { path: "^test/" },
    },
    {
      name: "support-not-to-suites",
      severity: "error",
      comment: "support/ serves the suites and the benchmarks; it never imports a suite (test/ or a *.test.ts).",
      from: { path: "^support/", pathNot: "\\.test\\.ts$" },
      to: { path: "(^test/|\\.test\\.ts$)" },
    },
    {
      name: "shared-lib-stays-shared",
      severity: "error",
      comment: "lib/ is shared by the indexer, both APIs and the scripts: it never imports any of them.",
      from: { path: "^lib/", pathNot: TEST },
      to: { path: "^(agents|api|config|exchange|indexer|relayer|scripts|src|web)/" },
    },
    {
      name: "relayer-below-its-users",
      severity: "error",
      comment:
        "relayer/ (nonces, journal, fillers) is a layer below the ecosystem API and the agents runtime that send through it: it imports only lib/.",
      from: { path: "^relayer/", pathNot: TEST },
      to: { path: "^(agents|api|config|exchange|indexer|scripts|src)/" },
    },
    {
      name: "relayer-public-surface",
      severity: "error",
      comment: "Outside relayer/, only its public surface (relayer/index.ts) is imported.",
      from: { pathNot: "^relayer/" },
      to: { path: "^relayer/", pathNot: "^relayer/index\\.ts$" },
    },
    {
      name: "agents-not-to-api",
      severity: "error",
      comment:
        "The agents runtime is a client of the chain and the relayer, beside the ecosystem API, never above it: it never imports api/.",
      from: { path: "^agents/" },
      to: { path: "^api/" },
    },
    {
      name: "exchange-core-only-core",
      severity: "error",
      comment:
        "exchange/core (money, matching, ledger, pair market, candle math, Result and DomainError) is pure: no I/O, no HTTP, no database, nothing outside exchange/core.",
      from: { path: "^exchange/core/", pathNot: TEST },
      to: { pathNot: "^exchange/core/", dependencyTypesNot: ["core"] },
    },
    {
      name: "exchange-core-no-node-io",
      severity: "error",
      comment: "No Node built-ins with I/O or clocks in exchange/core; node:crypto's hashing is deterministic.",
      from: { path: "^exchange/core/", pathNot: TEST },
      to: { dependencyTypes: ["core"], pathNot: "^(node:)?crypto$" },
    },
    {
      name: "exchange-application-not-to-adapters",
      severity: "error",
      comment:
        "The application layer reaches storage, auth and market data only through the ports it declares (application/ports.ts), and knows nothing of HTTP: no adapter, route, server or lib/http (ApiError, statuses), no Hono.",
      from: { path: "^exchange/application/", pathNot: TEST },
      to: { path: ["^exchange/(adapters|server|demo|bot)/", "^lib/http/", "node_modules/hono/", "node_modules/@hono/"] },
    },
    {
      name: "exchange-routes-not-to-store",
      severity: "error",
      comment:
        "Routes (exchange/adapters/http) call the application layer; only the composition root (exchange/server) wires the store.",
      from: { path: "^exchange/adapters/http/", pathNot: TEST },
      to: { path: "^exchange/adapters/store/" },
    },
    {
      name: "writes-saga-not-to-http",
      severity: "error",
      comment:
        "The writes' saga and its adapters speak in outcomes with codes (api/writes/outcome.ts); only the HTTP adapter (api/writes/http/) knows statuses, through its one map (http/statuses.ts). Outside http/, only the composition (index.ts, start.ts, thread/start.ts) imports it.",
      from: {
        path: "^api/writes/",
        pathNot: ["^api/writes/http/", "^api/writes/(index|start|thread/start)\\.ts$", TEST],
      },
      to: { path: "^api/writes/http/" },
    },
    {
      name: "exchange-internals-private",
      severity: "error",
      comment:
        "Outside exchange/, only a module's public surface (its index.ts) is imported; the allowlist is the server's and the gateway's start() and the demo's seed, which tests and benchmarks start them with.",
      from: { pathNot: "^exchange/" },
      to: {
        path: "^exchange/",
        pathNot: [
          "^exchange/[a-z/-]+/index\\.ts$",
          "^exchange/(server|gateway)/start\\.ts$",
          "^exchange/demo/reference-data\\.ts$",
        ],
      },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|artifacts|cache|types|generated|\\.ponder|\\.data|snapshots)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".mjs", ".json"] },
  },
};
