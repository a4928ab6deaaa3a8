import type { DealRange, DealRow } from "../../exchange/application/index.ts";

/**
 * Test model of a page of deals, as /api/deals and /historical_trades define it: filter by
 * time range and side, order by time then trade id descending, then offset and limit. Both the
 * database query and the in-memory RecentDeals are held to it.
 */
export function modelPage(all: readonly DealRow[], range: DealRange): DealRow[] {
  return all
    .filter(
      (d) =>
        (range.sinceUs === undefined || d.executedAtUs >= range.sinceUs) &&
        (range.untilUs === undefined || d.executedAtUs <= range.untilUs),
    )
    .filter((d) => range.takerIsBid === undefined || d.takerIsBid === range.takerIsBid)
    .sort((a, b) => b.executedAtUs - a.executedAtUs || b.tradeSeq - a.tradeSeq)
    .slice(range.offset, range.offset + range.limit);
}
