import { desc, eq } from "ponder";
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
      // The log index orders swaps within a block.
      .orderBy(desc(swap.timestamp), desc(swap.blockNumber), desc(swap.logIndex))
      .limit(RECENT_TRADES),
  ]);
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
    recentTrades: trades.map((t) => toTrade(t, decimals)),
  };
}

/** The swap columns a trade shows. */
export interface SwapRow {
  txHash: `0x${string}`;
  isBuy: boolean;
  amountIn: bigint;
  amountOut: bigint;
  sender: `0x${string}`;
  blockNumber: bigint;
  timestamp: number;
}

/** A swap as the pool endpoint (and the launchpad stream) shows it; `pairDecimals` of the pool's pair asset. */
export function toTrade(t: SwapRow, pairDecimals: number): Trade {
  // A buy pays the pair asset in and the token out; a sell the reverse.
  return {
    txHash: t.txHash,
    side: t.isBuy ? "buy" : "sell",
    amountIn: formatAmount(t.amountIn, t.isBuy ? pairDecimals : TOKEN_DECIMALS),
    amountOut: formatAmount(t.amountOut, t.isBuy ? TOKEN_DECIMALS : pairDecimals),
    trader: t.sender,
    blockNumber: Number(t.blockNumber),
    timestamp: t.timestamp,
  };
}
