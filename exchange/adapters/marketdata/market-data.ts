import { formatUnits } from "../../core/money/index.ts";
import type { DealRow, Exchange, ExchangeStore, Pair } from "../../application/index.ts";
import { RecentDeals, type DealRange } from "./recent-deals.ts";
import { DAY_US, RollingWindow, type TradePoint, type WindowStats } from "./rolling-window.ts";

// Live market data from the exchange's committed state: tickers from a rolling 24-hour window per
// pair (fed as deals commit, loaded from the database at start and after every reload), order
// books from the committed view (never an order still waiting for its commit). Everything stays
// in ticks, lots and base units until formatted.

export interface PairSnapshot {
  readonly pair: Pair;
  readonly stats: WindowStats;
  readonly bestBid: number | null;
  readonly bestAsk: number | null;
}

/** Deals per pair kept in memory: covers the newest pages of /api/deals and /historical_trades. */
const RECENT_DEALS = 2_000;

export interface BookLevel {
  readonly priceTicks: number;
  readonly lots: bigint;
}

export class MarketData {
  private readonly exchange: Exchange;
  private windows = new Map<string, RollingWindow>();
  private recent = new RecentDeals(RECENT_DEALS);
  private readonly dealCounts = new Map<string, number>();
  private loads = 0;
  private trades = 0;
  private readonly nowUs: () => number;

  private constructor(exchange: Exchange, nowUs: () => number) {
    this.exchange = exchange;
    this.nowUs = nowUs;
  }

  /** Loads the last 24 hours of deals (and the one before, for the price 24 hours ago) of every pair. */
  static async open(exchange: Exchange, nowUs: () => number = () => Date.now() * 1000): Promise<MarketData> {
    const marketData = new MarketData(exchange, nowUs);
    await marketData.load(exchange.store);
    exchange.onDeals((deals) => marketData.record(deals));
    // A commit whose outcome was unknown may have stored deals nobody was told about.
    exchange.onReload((store) => marketData.load(store));
    return marketData;
  }

  /** (Re)reads the deals of every pair; the old windows serve until the new ones are complete. */
  private async load(store: ExchangeStore): Promise<void> {
    const since = this.nowUs() - DAY_US;
    const windows = new Map<string, RollingWindow>();
    const recent = new RecentDeals(RECENT_DEALS);
    for (const pair of this.exchange.reference.pairs.values()) {
      const window = new RollingWindow();
      windows.set(pair.row.code, window);
      for (const deal of await store.recentDeals(pair.row.code, since)) window.add(pointOf(deal));
      const latest = await store.latestDeals(pair.row.code, RECENT_DEALS);
      recent.load(pair.row.code, latest, latest.length < RECENT_DEALS);
      this.dealCounts.set(pair.row.code, (this.dealCounts.get(pair.row.code) ?? 0) + 1);
    }
    this.windows = windows;
    this.recent = recent;
    this.loads++;
    this.trades++;
  }

  private windowOf(pairCode: string): RollingWindow {
    let window = this.windows.get(pairCode);
    if (window === undefined) {
      window = new RollingWindow();
      this.windows.set(pairCode, window);
    }
    return window;
  }

  /** A page of a pair's deals, newest first: from memory when it holds the whole page, else the database. */
  async deals(pair: Pair, range: DealRange): Promise<DealRow[]> {
    return this.recent.page(pair.row.code, range) ?? this.exchange.store.dealsPage(pair.row.code, range);
  }

  /** Changes whenever a deal of the pair is recorded: readers cache views by it. */
  dealsVersion(pairCode: string): number {
    return this.dealCounts.get(pairCode) ?? 0;
  }

  /**
   * Changes only when the deals are read again from the database (start, reload): what was
   * committed before a moment long past cannot change otherwise.
   */
  loadVersion(): number {
    return this.loads;
  }

  /**
   * Changes whenever a deal of any pair is recorded, and when the deals are read again: one
   * number for views of every pair (the all-pairs summary), where summing dealsVersion would
   * cost a pass over the pairs.
   */
  tradeVersion(): number {
    return this.trades;
  }

  private record(deals: readonly DealRow[]): void {
    if (deals.length > 0) this.trades++;
    this.recent.add(deals);
    for (const deal of deals) this.dealCounts.set(deal.pairCode, (this.dealCounts.get(deal.pairCode) ?? 0) + 1);
    for (const deal of deals) {
      const pair = this.exchange.reference.pairs.get(deal.pairCode);
      if (pair !== undefined) this.windowOf(deal.pairCode).add(pointOf(deal));
    }
  }

  now(): number {
    return this.nowUs();
  }

  snapshot(pair: Pair): PairSnapshot {
    const code = pair.row.code;
    const committed = this.exchange.committed;
    return {
      pair,
      stats: this.windowOf(code).stats(this.nowUs()),
      bestBid: committed.best(code, true),
      bestAsk: committed.best(code, false),
    };
  }

  /** Committed price levels of one side, best first; `maxLevels` Infinity for the whole side. */
  levels(pair: Pair, isBid: boolean, maxLevels: number): BookLevel[] {
    return this.exchange.committed.levels(pair.row.code, isBid, maxLevels);
  }
}

function pointOf(deal: DealRow): TradePoint {
  return {
    timeUs: deal.executedAtUs,
    priceTicks: deal.priceTicks,
    lots: deal.amountLots,
    quoteUnits: BigInt(deal.priceTicks) * BigInt(deal.amountLots),
  };
}

/**
 * Percentage change from `from` to `to` (both in ticks), exact to two decimals, rounded half away
 * from zero; "0" when there is no earlier price.
 */
export function percentChange(from: number | null, to: number | null): string {
  if (from === null || to === null || from === 0) return "0";
  const scaled = (BigInt(to - from) * 10_000n * 2n) / BigInt(from);
  const rounded = scaled >= 0n ? (scaled + 1n) / 2n : (scaled - 1n) / 2n;
  return formatUnits(rounded, 2);
}

/** price x amount in quote units of 10^-(digitsPrice + digitsAmount): exact, no rounding. */
export function tickLotText(ticksTimesLots: bigint, pair: Pair): string {
  return formatUnits(ticksTimesLots, pair.spec.digitsPrice + pair.spec.digitsAmount);
}
