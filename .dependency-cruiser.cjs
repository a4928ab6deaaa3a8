/**
 * Import boundaries, checked by `npm run lint` (depcruise). Each rule names what it protects;
 * see README "Layout". Test files, fixtures and test support may import anything but each other's
 * cycles; production code may not import tooling (scripts/) or test code.
 */
// Tests: suites in test/<area>/ and *.test.ts beside the code; test support in test/support/.
const TEST = "(^test/|\\.test\\.ts$)";
const RUNTIME = "^(agents|api|config|exchange|indexer|lib|src|web/server)/";

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
      name: "shared-lib-stays-shared",
      severity: "error",
      comment: "lib/ is shared by the indexer, both APIs and the scripts: it never imports any of them.",
      from: { path: "^lib/", pathNot: TEST },
      to: { path: "^(api|config|exchange|indexer|scripts|src|web)/" },
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
