/**
 * Runs tasks one at a time per key, and any number at once across keys; a task naming several
 * keys waits for all of them. The exchange settles a fee hold only after its hold committed; the
 * ecosystem API runs two spawns of one symbol, or two votes of one user on one proposal, one after
 * the other (both would pass the pre-checks and the second would revert on-chain, paying gas for
 * nothing). A task whose keys are free starts at once, in the caller's turn, as a plain call would.
 * Memory keeps only keys with a task running or waiting.
 */
export class KeyedLock {
  /** Per key, the last task's end (never rejects). */
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(keys: readonly string[], task: () => Promise<T>): Promise<T> {
    const unique = [...new Set(keys)];
    const before = unique.flatMap((key) => this.tails.get(key) ?? []);
    const result = before.length === 0 ? call(task) : Promise.all(before).then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    for (const key of unique) this.tails.set(key, tail);
    void tail.then(() => {
      for (const key of unique) if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with a task running or waiting (tests). */
  size(): number {
    return this.tails.size;
  }
}

function call<T>(task: () => Promise<T>): Promise<T> {
  try {
    return task();
  } catch (error) {
    return Promise.reject(error);
  }
}
