/**
 * The demo's chain time. The seed writes history that spans days (proposals pass WorkerVoting's
 * voting delay and period before newer ones open), so the local node `npm start` runs starts
 * its clock this far in the past (Hardhat's `initialDate`, the `demo` network of
 * hardhat.config.ts); the seed then lands its last era on the wall clock and leaves the node's
 * clock following it (scripts/lib/seed-demo.ts). Kept free of imports: hardhat.config.ts reads it.
 */
export const DEMO_HISTORY_SECONDS = 6 * 24 * 3600;

/** The genesis date of a demo node started now. */
export const demoInitialDate = (nowMs = Date.now()) => new Date(nowMs - DEMO_HISTORY_SECONDS * 1000);
