// Ponder reads the schema from here; the tables live in indexer/schema.ts.
export * from "./indexer/schema.ts";
