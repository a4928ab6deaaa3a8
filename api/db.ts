import type { ReadonlyDrizzle } from "ponder";
import type * as schema from "../indexer/schema.ts";

/** The read-only Drizzle handle Ponder gives API code (`db` of "ponder:api"), or a test's PGlite. */
export type Db = ReadonlyDrizzle<typeof schema>;

/** A WHERE condition built with the drizzle operators Ponder re-exports (drizzle's SQL). */
export type Condition = ReturnType<typeof import("ponder").eq>;
