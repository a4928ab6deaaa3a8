import { useEffect, useState } from "react";
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

export function RelativeTime({ time }: { time: number | null | undefined }) {
  const now = useNow();
  if (time === null || time === undefined) return <span>never</span>;
  return (
    <time dateTime={new Date(time * 1000).toISOString()} title={absoluteTime(time)}>
      {relativeTime(time, now)}
    </time>
  );
}
