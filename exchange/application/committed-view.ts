import type { BalanceRow, FeeTotalRow, OrderRow, WriteUnit } from "./records.ts";

// What the database holds, kept in memory for reads. The working state (books, ledger) runs
// ahead of the database by the commands waiting for their commit; readers must never see those
// (a client could act on an order that is then lost with a failed commit). Every WriteUnit
// already carries the final committed rows of what it touched, so applying each unit once its
// batch has committed keeps this view equal to the database, without a query.

export interface LevelView {
  readonly priceTicks: number;
  readonly lots: bigint;
}

/** One side of a committed book: lots per price, prices kept sorted ascending. */
class Side {
  private readonly lots = new Map<number, bigint>();
  private readonly prices: number[] = [];
  private readonly isBid: boolean;

  constructor(isBid: boolean) {
    this.isBid = isBid;
  }

  add(price: number, lots: bigint): void {
    if (lots === 0n) return;
    const before = this.lots.get(price);
    const after = (before ?? 0n) + lots;
    if (after < 0n) throw new Error(`committed book level ${price} went negative`);
    if (after === 0n) {
      this.lots.delete(price);
      this.prices.splice(this.indexOf(price), 1);
    } else {
      if (before === undefined) this.prices.splice(this.indexOf(price), 0, price);
      this.lots.set(price, after);
    }
  }

  /** The first index whose price is >= `price` (binary search). */
  private indexOf(price: number): number {
    let lo = 0;
    let hi = this.prices.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.prices[mid] < price) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  at(price: number): bigint {
    return this.lots.get(price) ?? 0n;
  }

  best(): number | null {
    if (this.prices.length === 0) return null;
    return this.isBid ? this.prices[this.prices.length - 1] : this.prices[0];
  }

  levels(max: number): LevelView[] {
    const count = Math.min(max, this.prices.length);
    const result: LevelView[] = new Array(count);
    for (let i = 0; i < count; i++) {
      const price = this.isBid ? this.prices[this.prices.length - 1 - i] : this.prices[i];
      result[i] = { priceTicks: price, lots: this.lots.get(price)! };
    }
    return result;
  }
}

/** Book versions come from one clock shared by every view, so a reloaded view never repeats one. */
let versionClock = 0;

interface Book {
  readonly bids: Side;
  readonly asks: Side;
  version: number;
  /** Per pair, +1 for each committed unit that changed the book: the depth stream's update id. */
  updateId: number;
}

export interface CommittedState {
  readonly balances: readonly BalanceRow[];
  readonly fees: readonly FeeTotalRow[];
  /** Orders with status open. */
  readonly openOrders: readonly OrderRow[];
}

export class CommittedView {
  private readonly balances = new Map<string, Map<string, { available: bigint; locked: bigint }>>();
  private readonly fees = new Map<string, bigint>();
  private readonly open = new Map<string, OrderRow>();
  private readonly openByUser = new Map<string, Map<string, OrderRow>>();
  private readonly books = new Map<string, Book>();

  /**
   * The view of what start-up (or a reload) read from the database. After a reload, each book's
   * update id moves on from the replaced view's by one more than loading took: a depth client sees
   * a gap and resyncs from the snapshot rather than trusting diffs across the reload.
   */
  static of(state: CommittedState, replaced?: CommittedView): CommittedView {
    const view = new CommittedView();
    view.apply({ balances: state.balances, fees: state.fees, orders: state.openOrders });
    for (const [code, book] of replaced?.books ?? []) view.bookOf(code).updateId += book.updateId + 1;
    return view;
  }

  /** Applies a unit whose batch has committed; units must arrive in commit order. */
  apply(unit: WriteUnit): void {
    const touched = new Set<Book>();
    for (const row of unit.orders ?? []) {
      const book = this.applyOrder(row);
      if (book) touched.add(book);
    }
    for (const book of touched) book.updateId++;
    for (const row of unit.balances ?? []) {
      let own = this.balances.get(row.userId);
      if (own === undefined) {
        own = new Map();
        this.balances.set(row.userId, own);
      }
      own.set(row.currency, { available: row.available, locked: row.locked });
    }
    for (const row of unit.fees ?? []) this.fees.set(row.currency, row.amount);
  }

  /** Returns the book when the row moved it. */
  private applyOrder(row: OrderRow): Book | undefined {
    const before = this.open.get(row.id);
    if (before === undefined && row.status !== "open") return undefined;
    const book = this.bookOf(row.pairCode);
    book.version = ++versionClock;
    if (before !== undefined) {
      this.sideOf(book, before).add(before.priceTicks!, -BigInt(before.remainingLots));
      this.open.delete(row.id);
      this.openByUser.get(row.userId)?.delete(row.id);
    }
    if (row.status !== "open") return book;
    if (row.priceTicks === null) throw new Error(`open order ${row.id} has no price`);
    this.sideOf(book, row).add(row.priceTicks, BigInt(row.remainingLots));
    this.open.set(row.id, row);
    let own = this.openByUser.get(row.userId);
    if (own === undefined) {
      own = new Map();
      this.openByUser.set(row.userId, own);
    }
    own.set(row.id, row);
    return book;
  }

  private bookOf(pairCode: string): Book {
    let book = this.books.get(pairCode);
    if (book === undefined) {
      book = { bids: new Side(true), asks: new Side(false), version: 0, updateId: 0 };
      this.books.set(pairCode, book);
    }
    return book;
  }

  private sideOf(book: Book, row: OrderRow): Side {
    return row.isBid ? book.bids : book.asks;
  }

  balance(userId: string, currency: string): { available: bigint; locked: bigint } {
    return this.balances.get(userId)?.get(currency) ?? { available: 0n, locked: 0n };
  }

  /** Every (user, currency) with a stored balance row. */
  *allBalances(): Iterable<BalanceRow> {
    for (const [userId, own] of this.balances) for (const [currency, b] of own) yield { userId, currency, ...b };
  }

  feeTotal(currency: string): bigint {
    return this.fees.get(currency) ?? 0n;
  }

  openOrder(orderId: string): OrderRow | undefined {
    return this.open.get(orderId);
  }

  /** A user's open orders, newest first. */
  openOrdersOf(userId: string, pairCode?: string): OrderRow[] {
    const result: OrderRow[] = [];
    for (const row of this.openByUser.get(userId)?.values() ?? [])
      if (pairCode === undefined || row.pairCode === pairCode) result.push(row);
    return result.sort((a, b) => b.seq - a.seq);
  }

  /** Price levels of one side, best first. */
  levels(pairCode: string, isBid: boolean, max: number): LevelView[] {
    const book = this.books.get(pairCode);
    return book === undefined ? [] : (isBid ? book.bids : book.asks).levels(max);
  }

  /** Lots resting at one price (0n when none). */
  levelLots(pairCode: string, isBid: boolean, priceTicks: number): bigint {
    const book = this.books.get(pairCode);
    return book === undefined ? 0n : (isBid ? book.bids : book.asks).at(priceTicks);
  }

  /** The pair's depth update id: how many committed units have changed its book (see Book). */
  updateId(pairCode: string): number {
    return this.books.get(pairCode)?.updateId ?? 0;
  }

  best(pairCode: string, isBid: boolean): number | null {
    const book = this.books.get(pairCode);
    return book === undefined ? null : (isBid ? book.bids : book.asks).best();
  }

  /** Changes whenever a committed unit touched an open order of the pair: readers cache views by it. */
  version(pairCode: string): number {
    return this.books.get(pairCode)?.version ?? 0;
  }

  /** Everything the view holds as plain sorted data (tests compare two views with it). */
  describe(): unknown {
    const sortKey = <T>(entries: [string, T][]) => entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const balances = sortKey(
      [...this.allBalances()]
        .filter((b) => b.available !== 0n || b.locked !== 0n)
        .map((b) => [`${b.userId}/${b.currency}`, b]),
    );
    const books = sortKey(
      [...this.books.keys()].map(
        (code) =>
          [code, { bids: this.levels(code, true, Infinity), asks: this.levels(code, false, Infinity) }] as [
            string,
            unknown,
          ],
      ),
    ).filter(
      ([, book]) =>
        (book as { bids: unknown[]; asks: unknown[] }).bids.length +
          (book as { bids: unknown[]; asks: unknown[] }).asks.length >
        0,
    );
    return {
      balances,
      fees: sortKey([...this.fees].filter(([, amount]) => amount !== 0n)),
      open: sortKey([...this.open]),
      books,
    };
  }
}
