import { type EventNames, ponder } from "ponder:registry";

// The events our app handles, found by the benchmark in indexer/handlers/*.ts: registering the
// same set keeps both apps' event streams identical without a list to keep in step by hand.
const names = (process.env.BENCH_EVENT_NAMES ?? "").split(",").filter(Boolean);
if (names.length === 0) throw new Error("BENCH_EVENT_NAMES is empty: run this app through npm run bench:indexer");
for (const name of names) ponder.on(name as EventNames, async () => {});
