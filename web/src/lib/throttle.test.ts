import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { throttle } from "./throttle.ts";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("throttle", () => {
  it("runs the first call at once and folds a burst into one trailing run", () => {
    const run = vi.fn();
    const refresh = throttle(run, 2_000);
    refresh();
    expect(run).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(100);
      refresh();
    }
    expect(run).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1_000);
    expect(run).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(10_000);
    expect(run).toHaveBeenCalledTimes(2);
  });

  it("runs at once again after a quiet window", () => {
    const run = vi.fn();
    const refresh = throttle(run, 2_000);
    refresh();
    vi.advanceTimersByTime(2_500);
    refresh();
    expect(run).toHaveBeenCalledTimes(2);
  });

  it("cancel drops the pending run", () => {
    const run = vi.fn();
    const refresh = throttle(run, 2_000);
    refresh();
    refresh();
    refresh.cancel();
    vi.advanceTimersByTime(5_000);
    expect(run).toHaveBeenCalledTimes(1);
  });
});
