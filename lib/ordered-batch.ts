/**
 * Sends items in the order their tickets were taken, as many together as are ready: what became
 * ready while one batch was out goes in the next. A ticket's holder either submits its item or
 * releases the ticket; nothing after a ticket is sent before that ticket is settled one way or
 * the other. The relayer takes a ticket with each nonce, so its transactions reach the node in
 * nonce order, and the ones journalled while a broadcast was out share the next JSON-RPC batch.
 * With `send` (a ticket taken and submitted at once) it is plain coalescing: an idle sender sends
 * an item at once, a busy one gathers the items for its next call (the API's exchange calls).
 */

type Entry<T, R> = {
  readonly item: T;
  readonly resolve: (value: R) => void;
  readonly reject: (error: unknown) => void;
};

/** A bound on a batch's total weight (an item heavier than it goes alone). */
export interface BatchBudget<T> {
  readonly weightOf: (item: T) => number;
  readonly max: number;
}

export class OrderedBatch<T, R> {
  private taken = 0;
  /** The first ticket neither sent nor released. */
  private next = 0;
  private readonly ready = new Map<number, Entry<T, R> | "released">();
  private busy = false;
  private readonly sendAll: (items: readonly T[]) => Promise<PromiseSettledResult<R>[]>;
  private readonly maxBatch: number;
  private readonly budget: BatchBudget<T> | undefined;

  /**
   * `sendAll` answers each item in order; a throw fails every item of the batch. A batch holds at
   * most `maxBatch` items and, with `budget`, items of at most `budget.max` weight together.
   */
  constructor(
    sendAll: (items: readonly T[]) => Promise<PromiseSettledResult<R>[]>,
    maxBatch: number,
    budget?: BatchBudget<T>,
  ) {
    if (!Number.isInteger(maxBatch) || maxBatch < 1)
      throw new Error(`maxBatch must be a positive integer: ${maxBatch}`);
    this.sendAll = sendAll;
    this.maxBatch = maxBatch;
    this.budget = budget;
  }

  take(): number {
    return this.taken++;
  }

  /** Sends `item` once every earlier ticket is settled; resolves with its own answer. */
  submit(ticket: number, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.settle(ticket, { item, resolve, reject });
    });
  }

  /** Sends `item` after every item submitted or ticket taken before it; resolves with its own answer. */
  send(item: T): Promise<R> {
    return this.submit(this.take(), item);
  }

  /** Gives up a ticket whose item will not be sent, so later ones are not held behind it. */
  release(ticket: number): void {
    if (ticket >= this.next && !this.ready.has(ticket)) this.settle(ticket, "released");
  }

  private settle(ticket: number, entry: Entry<T, R> | "released"): void {
    if (ticket < this.next || ticket >= this.taken || this.ready.has(ticket))
      throw new Error(`ticket ${ticket} is not one waiting to be sent`);
    this.ready.set(ticket, entry);
    this.pump();
  }

  private pump(): void {
    if (this.busy) return;
    const batch: Entry<T, R>[] = [];
    let weight = 0;
    while (batch.length < this.maxBatch) {
      const entry = this.ready.get(this.next);
      if (entry === undefined) break;
      if (entry !== "released" && this.budget) {
        const more = this.budget.weightOf(entry.item);
        if (batch.length > 0 && weight + more > this.budget.max) break;
        weight += more;
      }
      this.ready.delete(this.next);
      this.next++;
      if (entry !== "released") batch.push(entry);
    }
    if (batch.length === 0) return;
    this.busy = true;
    this.sendAll(batch.map((e) => e.item))
      .then(
        (results) =>
          batch.forEach((e, i) => {
            const result = results[i];
            if (result?.status === "fulfilled") e.resolve(result.value);
            else e.reject(result ? result.reason : new Error("no answer for this item of the batch"));
          }),
        (error: unknown) => {
          for (const e of batch) e.reject(error);
        },
      )
      .finally(() => {
        this.busy = false;
        this.pump();
      });
  }
}
