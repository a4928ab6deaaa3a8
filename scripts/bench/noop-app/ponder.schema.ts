import { onchainTable } from "ponder";

// Ponder needs a schema; the no-op handlers never write to it.
export const noop = onchainTable("noop", (t) => ({ id: t.text().primaryKey() }));
