/**
 * Import boundaries, checked by `npm run lint` (depcruise). Each rule names what it protects;
 * see README "Layout". Test files, fixtures and test support may import anything but each other's
 * cycles; production code may not import tooling (scripts/) or test code.
 */
const TEST = "(^test/|\\.test\\.ts$|(^|/)test-fixtures\\.ts$|(^|/)test-helpers\\.ts$|^lib/testing/|^api/testing/)";
const RUNTIME = "^(api|config|exchange|indexer|lib|src)/";

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
      name: "pure-cores-stay-pure",
      severity: "error",
      comment:
        "The matching engine and exact money are pure: no I/O, no HTTP, no database, nothing outside themselves but each other.",
      from: { path: "^exchange/core/(matching|money)/", pathNot: TEST },
      // exchange/core/result.ts is the shared Result value type (no behaviour).
      to: { pathNot: ["^exchange/core/(matching|money)/", "^exchange/core/result\\.ts$"], dependencyTypesNot: ["core"] },
    },
    {
      name: "pure-cores-no-node-io",
      severity: "error",
      comment: "No Node built-ins with I/O or clocks in the pure cores; node:crypto's hashing is deterministic.",
      from: { path: "^exchange/core/(matching|money)/", pathNot: TEST },
      to: { dependencyTypes: ["core"], pathNot: "^(node:)?crypto$" },
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
