import { createContext, useContext, useEffect, useState } from "react";
import { absoluteTime, relativeTime } from "../lib/format.ts";

/** The wall clock, re-read every `everyMs` so relative times keep reading true. */
export function useNow(everyMs = 10_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/**
 * How far (ms) the chain's clock runs ahead of this browser's. A local node stamps each block at
 * least a second after the last, so while it mines faster than a block a second its time leads
 * the wall clock (by tens of seconds under the demo's bursts); a block's time is then best read
 * against the chain's own "now". 0 until known, and never negative (an idle chain's last block is
 * simply old). Provided by ChainClock (wallet/ChainStatus.tsx).
 */
export const ChainClockContext = createContext(0);

/**
 * A time as "3 min ago" / "in 2 days", with the UTC time as a tooltip. `clock`: "chain" for block
 * times (the default: trades, actions, spawns, proposals, boosts), "wall" for the exchange's
 * own times (deals, sessions, keys).
 */
export function RelativeTime({ time, clock = "chain" }: { time: number | null | undefined; clock?: "chain" | "wall" }) {
  const now = useNow();
  const chainLeadMs = useContext(ChainClockContext);
  if (time === null || time === undefined) return <span>never</span>;
  return (
    <time dateTime={new Date(time * 1000).toISOString()} title={absoluteTime(time)}>
      {relativeTime(time, clock === "chain" ? now + chainLeadMs : now)}
    </time>
  );
}
