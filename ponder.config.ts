// Ponder reads its configuration from here; it is built in indexer/ponder-config.ts.
export { default } from "./indexer/ponder-config.ts";
