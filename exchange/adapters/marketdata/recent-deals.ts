import type { DealRange, DealRow } from "../../application/index.ts";

export type { DealRange };

// The newest deals of each pair in memory, fed as deals commit. Most readers of /api/deals and
// /historical_trades ask for the newest page, so those answers need no database round trip.
// A page is answered from memory only when memory provably holds every deal it could contain;
// otherwise the caller asks the database, so both paths always agree.

interface PairDeals {
  /** Ascending by (executedAtUs, tradeSeq), the reverse of the database's read order. */
  deals: DealRow[];
  /** true while nothing older than deals[0] exists (nothing was ever dropped or left unloaded). */
  complete: boolean;
}

export class RecentDeals {
  private readonly capacity: number;
  private readonly pairs = new Map<string, PairDeals>();

  constructor(capacity = 2_000) {
    this.capacity = capacity;
  }

  /** Start-up: the newest deals of a pair, oldest first; `complete` when they are all it has. */
  load(pairCode: string, deals: readonly DealRow[], complete: boolean): void {
    this.pairs.set(pairCode, { deals: [...deals], complete });
    this.trim(this.pairs.get(pairCode)!);
  }

  add(deals: readonly DealRow[]): void {
    for (const deal of deals) {
      let pair = this.pairs.get(deal.pairCode);
      if (pair === undefined) {
        pair = { deals: [], complete: true };
        this.pairs.set(deal.pairCode, pair);
      }
      const list = pair.deals;
      let at = list.length;
      // Deal times only go backwards if the wall clock did across a restart: keep the order exact.
      while (at > 0 && before(deal, list[at - 1])) at--;
      list.splice(at, 0, deal);
      this.trim(pair);
    }
  }

  /** The page, newest first, or undefined when memory may be missing some of it. */
  page(pairCode: string, range: DealRange): DealRow[] | undefined {
    const pair = this.pairs.get(pairCode) ?? { deals: [], complete: true };
    const result: DealRow[] = [];
    let skip = range.offset;
    for (let i = pair.deals.length - 1; i >= 0; i--) {
      const deal = pair.deals[i];
      if (range.untilUs !== undefined && deal.executedAtUs > range.untilUs) continue;
      if (range.sinceUs !== undefined && deal.executedAtUs < range.sinceUs) return result;
      if (range.takerIsBid !== undefined && deal.takerIsBid !== range.takerIsBid) continue;
      if (skip > 0) {
        skip--;
        continue;
      }
      result.push(deal);
      if (result.length === range.limit) return result;
    }
    // Ran out of memory before the page was full: only right if nothing older exists.
    return pair.complete ? result : undefined;
  }

  private trim(pair: PairDeals): void {
    const excess = pair.deals.length - this.capacity;
    if (excess <= 0) return;
    pair.deals.splice(0, Math.max(excess, Math.floor(this.capacity / 4)));
    pair.complete = false;
  }
}

function before(a: DealRow, b: DealRow): boolean {
  return a.executedAtUs < b.executedAtUs || (a.executedAtUs === b.executedAtUs && a.tradeSeq < b.tradeSeq);
}
