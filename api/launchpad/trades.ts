import { and, between, desc, eq } from "ponder";
import { tradePrice } from "../../indexer/candles.ts";
import { swap } from "../../indexer/schema.ts";
import type { Db } from "../db.ts";
import { offsetOf, type Page, type PageQuery, toPage } from "../shared/pagination.ts";
import { findToken } from "../shared/token-lookup.ts";
import { formatAmount, pairDecimalsOf, scaledPrice, TOKEN_DECIMALS } from "../shared/units.ts";
import type { PoolTrade } from "./routes.ts";

/**
 * A page of a pool's trades, newest first. Swaps are numbered 1, 2, 3... per pool in chain order
 * (swap.seq) and pool.swapCount is the newest number, so a page is the range of numbers it covers:
 * one probe of the (pool, seq) index at any depth, and the count read with the pool is the total.
 * A swap indexed after the pool row was read has a larger number, so it never shifts the page.
 */
export async function poolTrades(db: Db, tokenRef: string, query: PageQuery): Promise<Page<PoolTrade>> {
  const { pool: p } = await findToken(db, tokenRef);
  const total = p.swapCount;
  const newest = total - offsetOf(query);
  if (newest < 1) return toPage([], query, total);
  const oldest = Math.max(1, newest - query.pageSize + 1);
  const rows = await tradeRows(db, p.address, oldest, newest);
  const decimals = pairDecimalsOf(p.side);
  return toPage(
    rows.map((row) => toPoolTrade(row, decimals)),
    query,
    total,
  );
}

/** The swap columns a trades item shows. */
export interface TradeRow {
  txHash: `0x${string}`;
  logIndex: number;
  blockNumber: bigint;
  timestamp: number;
  sender: `0x${string}`;
  isBuy: boolean;
  pairVolume: bigint;
  tokenVolume: bigint;
}

/** A swap as the trades list (and the launchpad stream's swap event) shows it; `pairDecimals` of the pool's pair asset. */
export function toPoolTrade(row: TradeRow, pairDecimals: number): PoolTrade {
  // The pool refuses a swap without tokens, so every indexed swap has a price.
  const price = tradePrice(row.pairVolume, row.tokenVolume) ?? 0n;
  return {
    txHash: row.txHash,
    logIndex: row.logIndex,
    blockNumber: Number(row.blockNumber),
    timestamp: row.timestamp,
    trader: row.sender,
    side: row.isBuy ? "buy" : "sell",
    tokenAmount: formatAmount(row.tokenVolume, TOKEN_DECIMALS),
    pairAmount: formatAmount(row.pairVolume, pairDecimals),
    price: scaledPrice(price, pairDecimals),
  };
}

/** The swaps numbered oldest..newest of a pool, newest first (exported for the query-plan test). */
export const tradeRows = (db: Db, poolAddress: `0x${string}`, oldest: number, newest: number) =>
  db
    .select({
      txHash: swap.txHash,
      logIndex: swap.logIndex,
      blockNumber: swap.blockNumber,
      timestamp: swap.timestamp,
      sender: swap.sender,
      isBuy: swap.isBuy,
      pairVolume: swap.pairVolume,
      tokenVolume: swap.tokenVolume,
    })
    .from(swap)
    .where(and(eq(swap.pool, poolAddress), between(swap.seq, oldest, newest)))
    .orderBy(desc(swap.seq));
