/**
 * Latencies in whole milliseconds (E and Date.now() have no finer grain), one counter per ms up
 * to a minute: exact percentiles over millions of events for a fixed 240 KB, and counters from
 * several threads add up.
 */
export const BUCKETS = 60_001; // 0..60,000 ms; the last also holds everything slower

export class Histogram {
  readonly counts: Uint32Array;
  count = 0;
  max = 0;

  constructor(counts = new Uint32Array(BUCKETS)) {
    this.counts = counts;
  }

  add(ms: number): void {
    const bucket = ms < 0 ? 0 : ms >= BUCKETS ? BUCKETS - 1 : ms;
    this.counts[bucket]!++;
    this.count++;
    if (ms > this.max) this.max = ms;
  }

  merge(other: { counts: Uint32Array; count: number; max: number }): void {
    for (let i = 0; i < BUCKETS; i++) this.counts[i]! += other.counts[i]!;
    this.count += other.count;
    this.max = Math.max(this.max, other.max);
  }

  /** Nearest-rank percentile (p in 0..100); NaN with no samples. */
  percentile(p: number): number {
    if (this.count === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return i === BUCKETS - 1 ? this.max : i;
    }
    return this.max;
  }
}
