// Deal times carry sub-millisecond digits (SPEC.md dealDateUtc), and two deals must never share
// a time out of order, so the service stamps commands with a strictly increasing microsecond clock.

export type MicrosClock = () => number;

export function monotonicMicros(wallMs: () => number = () => performance.timeOrigin + performance.now()): MicrosClock {
  let last = 0;
  return () => {
    const now = Math.floor(wallMs() * 1000);
    last = now > last ? now : last + 1;
    return last;
  };
}
