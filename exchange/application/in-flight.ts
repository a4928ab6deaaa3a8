// Idempotency for commands keyed by a client's id (clientOrderId, a deposit id, clientWithdrawalId).
// While a command runs, a repeat of its key waits for it and gets its result; once it is done it
// is committed, so the database answers repeats (`stored`) and memory keeps nothing.

export interface Once<T> {
  readonly value: T;
  /** true when `value` is an earlier command's result and nothing new was done. */
  readonly replay: boolean;
}

export class InFlight<T> {
  private readonly running = new Map<string, Promise<Once<T>>>();

  /** `stored` finds a finished command of this key; `fresh` runs it. A refused `fresh` frees the key. */
  async once(key: string, stored: () => Promise<T | null>, fresh: () => Promise<T>): Promise<Once<T>> {
    const known = this.running.get(key);
    if (known !== undefined) return { value: (await known).value, replay: true };
    // Registered before the first await, so a repeat arriving meanwhile finds it.
    const result = (async (): Promise<Once<T>> => {
      const earlier = await stored();
      return earlier !== null ? { value: earlier, replay: true } : { value: await fresh(), replay: false };
    })();
    this.running.set(key, result);
    try {
      return await result;
    } finally {
      this.running.delete(key);
    }
  }

  /** Keys running now (tests). */
  get size(): number {
    return this.running.size;
  }
}
