import { DEAL_COLUMNS, dealOf, type DealRecord } from "./rows.ts";
import type { DealRow, Queryable } from "./types.ts";

// Read queries of the market-data endpoints over the deals table (indexed by
// (pair_code, executed_at_us desc) and (pair_code, trade_seq)).

/** Deals after `sinceUs` plus the last one at or before it, oldest first. */
export async function recentDeals(db: Queryable, pairCode: string, sinceUs: number): Promise<DealRow[]> {
  const before = await db.query<DealRecord>(
    `select ${DEAL_COLUMNS} from deals where pair_code = $1 and executed_at_us <= $2 order by executed_at_us desc, trade_seq desc limit 1`,
    [pairCode, sinceUs],
  );
  const inside = await db.query<DealRecord>(
    `select ${DEAL_COLUMNS} from deals where pair_code = $1 and executed_at_us > $2 order by trade_seq`,
    [pairCode, sinceUs],
  );
  return [...before, ...inside].map(dealOf);
}

/** The newest `limit` deals of a pair, oldest first. */
export async function latestDeals(db: Queryable, pairCode: string, limit: number): Promise<DealRow[]> {
  const records = await db.query<DealRecord>(
    `select ${DEAL_COLUMNS} from deals where pair_code = $1 order by executed_at_us desc, trade_seq desc limit $2`,
    [pairCode, limit],
  );
  return records.map(dealOf).reverse();
}

/** A page of a pair's deals in a time range (inclusive), newest first. */
export async function dealsPage(
  db: Queryable,
  pairCode: string,
  range: { sinceUs?: number; untilUs?: number; offset: number; limit: number; takerIsBid?: boolean },
): Promise<DealRow[]> {
  const where = ["pair_code = $1"];
  const params: unknown[] = [pairCode];
  if (range.sinceUs !== undefined) where.push(`executed_at_us >= $${params.push(range.sinceUs)}`);
  if (range.untilUs !== undefined) where.push(`executed_at_us <= $${params.push(range.untilUs)}`);
  if (range.takerIsBid !== undefined) where.push(`taker_is_bid = $${params.push(range.takerIsBid)}`);
  const limit = `$${params.push(range.limit)}`;
  const offset = `$${params.push(range.offset)}`;
  const records = await db.query<DealRecord>(
    `select ${DEAL_COLUMNS} from deals where ${where.join(" and ")} order by executed_at_us desc, trade_seq desc limit ${limit} offset ${offset}`,
    params,
  );
  return records.map(dealOf);
}
