// The last 24 hours of one pair's trades, for tickers: last price, the price 24 hours ago,
// volumes and the high and low, each answered in O(1) amortised however many trades the day had
// (monotonic queues for the extremes instead of a scan per request).

export interface TradePoint {
  readonly timeUs: number;
  readonly priceTicks: number;
  readonly lots: number;
  readonly quoteUnits: bigint;
}

export interface WindowStats {
  readonly last: TradePoint | null;
  /** Price of the last trade at or before the window's start; null when none is known. */
  readonly priceBefore: number | null;
  /** First trade inside the window. */
  readonly first: TradePoint | null;
  readonly volumeLots: bigint;
  readonly volumeQuote: bigint;
  readonly high: number | null;
  readonly low: number | null;
  readonly count: number;
}

export const DAY_US = 86_400_000_000;

class Deque<T> {
  private items: T[] = [];
  private head = 0;
  get length() {
    return this.items.length - this.head;
  }
  peekFront(): T | undefined {
    return this.items[this.head];
  }
  peekBack(): T | undefined {
    return this.length > 0 ? this.items[this.items.length - 1] : undefined;
  }
  pushBack(item: T) {
    this.items.push(item);
  }
  popBack() {
    if (this.length > 0) this.items.pop();
  }
  popFront(): T | undefined {
    if (this.length === 0) return undefined;
    const item = this.items[this.head++];
    // Compact now and then so a long-running window does not keep every trade it ever saw.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

export class RollingWindow {
  private readonly trades = new Deque<TradePoint>();
  private readonly maxima = new Deque<TradePoint>();
  private readonly minima = new Deque<TradePoint>();
  private before: TradePoint | null = null;
  private last: TradePoint | null = null;
  private volumeLots = 0n;
  private volumeQuote = 0n;
  private readonly spanUs: number;

  constructor(spanUs = DAY_US) {
    this.spanUs = spanUs;
  }

  /** Trades arrive in execution order (their times never decrease). */
  add(trade: TradePoint): void {
    this.trades.pushBack(trade);
    this.last = trade;
    this.volumeLots += BigInt(trade.lots);
    this.volumeQuote += trade.quoteUnits;
    while ((this.maxima.peekBack()?.priceTicks ?? Infinity) <= trade.priceTicks) this.maxima.popBack();
    this.maxima.pushBack(trade);
    while ((this.minima.peekBack()?.priceTicks ?? -Infinity) >= trade.priceTicks) this.minima.popBack();
    this.minima.pushBack(trade);
  }

  stats(nowUs: number): WindowStats {
    const start = nowUs - this.spanUs;
    while ((this.trades.peekFront()?.timeUs ?? Infinity) <= start) {
      const gone = this.trades.popFront()!;
      this.before = gone;
      this.volumeLots -= BigInt(gone.lots);
      this.volumeQuote -= gone.quoteUnits;
      if (this.maxima.peekFront() === gone) this.maxima.popFront();
      if (this.minima.peekFront() === gone) this.minima.popFront();
    }
    return {
      last: this.last,
      priceBefore: this.before?.priceTicks ?? null,
      first: this.trades.peekFront() ?? null,
      volumeLots: this.volumeLots,
      volumeQuote: this.volumeQuote,
      high: this.maxima.peekFront()?.priceTicks ?? null,
      low: this.minima.peekFront()?.priceTicks ?? null,
      count: this.trades.length,
    };
  }
}
