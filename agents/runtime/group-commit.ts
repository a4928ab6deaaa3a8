/**
 * Group commit without a timer: the first item is stored alone; items that arrive while a store
 * runs wait and go together in the next one. Each caller's promise settles with its own item's
 * result once that store is done (or fails with it). With the journal on embedded PGlite,
 * statements one after another are what bound an agent's throughput (bench:agents).
 */
export class GroupCommit<T, R> {
  private readonly store: (items: readonly T[]) => Promise<readonly R[]>;
  private readonly maxPerStore: number;
  private readonly waiting: { item: T; resolve: (result: R) => void; reject: (error: unknown) => void }[] = [];
  private running: Promise<void> | undefined;

  /** `store` returns one result per item, in the items' order. */
  constructor(store: (items: readonly T[]) => Promise<readonly R[]>, maxPerStore = 500) {
    this.store = store;
    this.maxPerStore = maxPerStore;
  }

  push(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.running ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxPerStore);
      try {
        const results = await this.store(batch.map((b) => b.item));
        for (const [i, b] of batch.entries()) b.resolve(results[i]!);
      } catch (error) {
        for (const b of batch) b.reject(error);
      }
    }
    this.running = undefined;
  }
}
