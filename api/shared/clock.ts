import { desc } from "ponder";
import { chainHead } from "../../indexer/schema.ts";
import type { Db } from "../db.ts";

/** Wall clock in Unix seconds, injectable for tests. */
export type WallClock = () => number;

export const systemClock: WallClock = () => Math.floor(Date.now() / 1000);

export const DAY = 86_400;

/**
 * "Now" for every time window: the later of the wall clock and the newest indexed block, so a
 * local chain whose clock runs ahead of the wall clock still has meaningful 24h/7d windows.
 */
export async function currentTime(db: Db, wallClock: WallClock): Promise<number> {
  const [head] = await db
    .select({ timestamp: chainHead.timestamp })
    .from(chainHead)
    .orderBy(desc(chainHead.timestamp))
    .limit(1);
  return Math.max(wallClock(), head?.timestamp ?? 0);
}
