/**
 * At most one run per `ms`: the first call runs at once; calls within the window after it are
 * folded into one run at the window's end. A burst of live events (a busy pool swaps several times
 * a second) then costs one refetch per window instead of one per event, and the last event of the
 * burst is still followed by a run.
 */
export interface Throttled {
  (): void;
  /** Drops a pending run (the component unmounted). */
  cancel(): void;
}

export function throttle(run: () => void, ms: number, now: () => number = Date.now): Throttled {
  let lastRun = Number.NEGATIVE_INFINITY;
  let pending: ReturnType<typeof setTimeout> | undefined;
  const fire = () => {
    pending = undefined;
    lastRun = now();
    run();
  };
  const call = () => {
    if (pending !== undefined) return;
    const wait = lastRun + ms - now();
    if (wait <= 0) fire();
    else pending = setTimeout(fire, wait);
  };
  return Object.assign(call, {
    cancel() {
      clearTimeout(pending);
      pending = undefined;
    },
  });
}
