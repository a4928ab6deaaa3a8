import { desc, eq, sql } from "ponder";
import { swap } from "../../indexer/schema.ts";
import type { Db } from "../db.ts";
import { findToken } from "../shared/token-lookup.ts";
import { formatAmount, pairDecimalsOf, poolPrice, type Pricing, TOKEN_DECIMALS } from "../shared/units.ts";
import type { PoolDetail, Trade } from "./routes.ts";
import { pairVolume24h, stableValues } from "./tokens.ts";

export const RECENT_TRADES = 20;

export async function poolDetail(db: Db, now: number, pricing: Pricing, tokenRef: string): Promise<PoolDetail> {
  const { token, pool: p } = await findToken(db, tokenRef);
  const decimals = pairDecimalsOf(p.side);
  const [activity, trades] = await Promise.all([
    pairVolume24h(db, token.address, now),
    db
      .select({
        txHash: swap.txHash,
        isBuy: swap.isBuy,
        amountIn: swap.amountIn,
        amountOut: swap.amountOut,
        sender: swap.sender,
        blockNumber: swap.blockNumber,
        timestamp: swap.timestamp,
      })
      .from(swap)
      .where(eq(swap.token, token.address))
      // Swap ids are "<txHash>-<logIndex>": the log index orders swaps within a block.
      .orderBy(desc(swap.timestamp), desc(swap.blockNumber), desc(sql`split_part(${swap.id}, '-', 2)::integer`))
      .limit(RECENT_TRADES),
  ]);
  // A buy pays the pair asset in and the token out; a sell the reverse.
  const inDecimals = (isBuy: boolean) => (isBuy ? decimals : TOKEN_DECIMALS);
  const outDecimals = (isBuy: boolean) => (isBuy ? TOKEN_DECIMALS : decimals);
  return {
    address: p.address,
    token: p.token,
    pairAsset: p.pairAsset,
    side: p.side as PoolDetail["side"],
    feeTier: p.feeTier,
    reserves: {
      token: formatAmount(p.reserveToken, TOKEN_DECIMALS),
      pair: formatAmount(p.reservePair, decimals),
      virtualPair: formatAmount(p.virtualPair, decimals),
    },
    price: poolPrice(p.reserveToken, p.reservePair, p.virtualPair, decimals),
    tvl: formatAmount(p.reservePair, decimals),
    volume24h: formatAmount(activity.volume, decimals),
    ...stableValues(p.side, p.reservePair, activity.volume, pricing),
    swapCount24h: activity.swaps,
    lastTradeAt: p.lastTradeAt,
    recentTrades: trades.map(
      (t): Trade => ({
        txHash: t.txHash,
        side: t.isBuy ? "buy" : "sell",
        amountIn: formatAmount(t.amountIn, inDecimals(t.isBuy)),
        amountOut: formatAmount(t.amountOut, outDecimals(t.isBuy)),
        trader: t.sender,
        blockNumber: Number(t.blockNumber),
        timestamp: t.timestamp,
      }),
    ),
  };
}
