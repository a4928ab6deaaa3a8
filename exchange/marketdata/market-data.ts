import { formatUnits } from "../money/index.ts";
import type { Exchange, Pair } from "../service/index.ts";
import type { DealRow } from "../store/index.ts";
import { dealsPage, latestDeals, recentDeals } from "./queries.ts";
import { RecentDeals, type DealRange } from "./recent-deals.ts";
import { DAY_US, RollingWindow, type TradePoint, type WindowStats } from "./rolling-window.ts";

// Live market data from the exchange's books and committed deals: tickers from a rolling 24-hour
// window per pair (fed as deals commit, loaded from the database at start), order books straight
// from the in-memory books. Everything stays in ticks, lots and base units until formatted.

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
  private readonly windows = new Map<string, RollingWindow>();
  private readonly recent = new RecentDeals(RECENT_DEALS);
  private readonly dealCounts = new Map<string, number>();
  private readonly nowUs: () => number;

  private constructor(exchange: Exchange, nowUs: () => number) {
    this.exchange = exchange;
    this.nowUs = nowUs;
  }

  /** Loads the last 24 hours of deals (and the one before, for the price 24 hours ago) of every pair. */
  static async open(exchange: Exchange, nowUs: () => number = () => Date.now() * 1000): Promise<MarketData> {
    const marketData = new MarketData(exchange, nowUs);
    const since = nowUs() - DAY_US;
    for (const pair of exchange.reference.pairs.values()) {
      const window = marketData.windowOf(pair.row.code);
      for (const deal of await recentDeals(exchange.db, pair.row.code, since)) window.add(pointOf(pair, deal));
      const latest = await latestDeals(exchange.db, pair.row.code, RECENT_DEALS);
      marketData.recent.load(pair.row.code, latest, latest.length < RECENT_DEALS);
    }
    exchange.onDeals((deals) => marketData.record(deals));
    return marketData;
  }

  private windowOf(pairCode: string): RollingWindow {
    let window = this.windows.get(pairCode);
    if (window === undefined) this.windows.set(pairCode, (window = new RollingWindow()));
    return window;
  }

  /** A page of a pair's deals, newest first: from memory when it holds the whole page, else the database. */
  async deals(pair: Pair, range: DealRange): Promise<DealRow[]> {
    return this.recent.page(pair.row.code, range) ?? dealsPage(this.exchange.db, pair.row.code, range);
  }

  /** Changes whenever a deal of the pair is recorded: readers cache views by it. */
  dealsVersion(pairCode: string): number {
    return this.dealCounts.get(pairCode) ?? 0;
  }

  private record(deals: readonly DealRow[]): void {
    this.recent.add(deals);
    for (const deal of deals) this.dealCounts.set(deal.pairCode, (this.dealCounts.get(deal.pairCode) ?? 0) + 1);
    for (const deal of deals) {
      const pair = this.exchange.reference.pairs.get(deal.pairCode);
      if (pair !== undefined) this.windowOf(deal.pairCode).add(pointOf(pair, deal));
    }
  }

  now(): number {
    return this.nowUs();
  }

  snapshot(pair: Pair): PairSnapshot {
    const book = this.exchange.market(pair.row.code).book;
    return { pair, stats: this.windowOf(pair.row.code).stats(this.nowUs()), bestBid: book.bestBid(), bestAsk: book.bestAsk() };
  }

  /** Price levels of one side, best first; `maxLevels` Infinity for the whole side. */
  levels(pair: Pair, isBid: boolean, maxLevels: number): BookLevel[] {
    return this.exchange
      .market(pair.row.code)
      .book.depth(isBid, maxLevels)
      .map((level) => ({ priceTicks: level.price, lots: level.amount }));
  }
}

function pointOf(pair: Pair, deal: DealRow): TradePoint {
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

