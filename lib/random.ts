// mulberry32: a tiny, fast, reproducible random source from a 32-bit seed. Used wherever a run
// must replay from a printed seed (benchmarks, the crash test, the market-making bot). Never for
// anything secret, and never for money: callers turn its floats into integer ticks and lots.

export type Random = () => number;

/** Uniform floats in [0, 1), the same sequence for the same seed. */
export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
