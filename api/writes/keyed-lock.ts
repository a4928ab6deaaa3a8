/**
 * Runs tasks one at a time per key (and any number at once across keys). Two spawns of one
 * symbol, or two votes of one user on one proposal, would otherwise both pass the pre-checks
 * and the second would revert on-chain, paying gas for nothing.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(keys: readonly string[], task: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    const previous = sorted.map((key) => this.tails.get(key) ?? Promise.resolve());
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    for (const key of sorted) this.tails.set(key, done);
    await Promise.all(previous.map((p) => p.catch(() => {})));
    try {
      return await task();
    } finally {
      release();
      for (const key of sorted) if (this.tails.get(key) === done) this.tails.delete(key);
    }
  }

  /** Keys with a task running or waiting (tests). */
  size(): number {
    return this.tails.size;
  }
}
