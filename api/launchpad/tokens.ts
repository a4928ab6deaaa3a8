import { and, count, desc, eq, gt, isNull, lte, or, sql } from "ponder";
import { action, agentNft, agentToken, holderCount, pool, swap, worker } from "../../indexer/schema.ts";
import type { Condition, Db } from "../db.ts";
import { DAY } from "../shared/clock.ts";
import { offsetOf, type Page, type PageQuery, toPage } from "../shared/pagination.ts";
import { findToken } from "../shared/token-lookup.ts";
import {
  formatAmount,
  pairDecimalsOf,
  type Pricing,
  STABLE_DECIMALS,
  TOKEN_DECIMALS,
  valueInStable,
  valueScale,
} from "../shared/units.ts";
import type { TokenDetail, TokenListItem, TokenSort } from "./routes.ts";
import { workerStateAt, workerStatusSql } from "../shared/worker-status.ts";

export interface TokenFilter {
  sort: TokenSort;
  boosted?: boolean;
  poolSide?: string;
}

/** Pair-asset volume of a token's swaps in the 24 hours before `now` (the (token, timestamp) index). */
const volumeSince = (cutoff: number) =>
  sql<bigint>`(select coalesce(sum(${swap.pairVolume}), 0) from ${swap} where ${swap.token} = ${agentToken.address} and ${swap.timestamp} > ${cutoff})`.mapWith(
    (value: string | number | bigint) => BigInt(value),
  );

/**
 * A pair-asset amount as stable base units x 10^18 (exact, no rounding), so pools of both pair
 * assets rank by value: 1 wrapped native counts as the reference price, not as 10^12 x 1 stable.
 */
const inStableValue = (amount: ReturnType<typeof sql>, pricing: Pricing) =>
  sql`(${amount}) * (case ${agentToken.poolSide} ${sql.join(
    (["STABLE", "WRAPPED_NATIVE"] as const).map(
      (side) => sql`when ${side} then ${valueScale(side, pricing).toString()}::numeric`,
    ),
    sql` `,
  )} end)`;

/** The stable-token values beside a pool's pair-asset figures (fields beyond SPEC.md). */
export const stableValues = (side: string, tvl: bigint, volume24h: bigint, pricing: Pricing) => ({
  tvlStable: formatAmount(valueInStable(tvl, side, pricing), STABLE_DECIMALS),
  volume24hStable: formatAmount(valueInStable(volume24h, side, pricing), STABLE_DECIMALS),
});

export async function listTokens(
  db: Db,
  now: number,
  pricing: Pricing,
  filter: TokenFilter,
  query: PageQuery,
): Promise<Page<TokenListItem>> {
  const volume24h = volumeSince(now - DAY);
  const holders = sql<number>`coalesce(${holderCount.holders}, 0)`.mapWith(Number);
  const boosted = sql<boolean>`coalesce(${agentNft.boostExpiresAt} > ${now}, false)`.mapWith(Boolean);
  const where = and(
    filter.poolSide !== undefined ? eq(agentToken.poolSide, filter.poolSide) : undefined,
    filter.boosted === true ? gt(agentNft.boostExpiresAt, now) : undefined,
    filter.boosted === false ? or(isNull(agentNft.boostExpiresAt), lte(agentNft.boostExpiresAt, now)) : undefined,
  );
  const rank: Record<TokenSort, Condition[]> = {
    recent: [],
    volume: [desc(inStableValue(volume24h, pricing))],
    tvl: [desc(inStableValue(sql`${pool.reservePair}`, pricing))],
    holders: [desc(holders)],
  };
  const [rows, [total]] = await Promise.all([
    db
      .select({
        address: agentToken.address,
        symbol: agentToken.symbol,
        name: agentToken.name,
        spawnedAt: agentToken.spawnedAt,
        side: agentToken.poolSide,
        // TVL is the real pair reserve: the virtual one was never deposited (api/README.md).
        tvl: pool.reservePair,
        volume24h,
        holders,
        workerStatus: workerStatusSql(now),
        boosted,
      })
      .from(agentToken)
      .innerJoin(pool, eq(pool.address, agentToken.pool))
      .innerJoin(worker, eq(worker.id, agentToken.workerId))
      .innerJoin(agentNft, eq(agentNft.nftId, agentToken.nftId))
      .leftJoin(holderCount, eq(holderCount.token, agentToken.address))
      .where(where)
      .orderBy(...rank[filter.sort], desc(agentToken.spawnedAt), desc(agentToken.nftId))
      .limit(query.pageSize)
      .offset(offsetOf(query)),
    db
      .select({ n: count() })
      .from(agentToken)
      .innerJoin(pool, eq(pool.address, agentToken.pool))
      .innerJoin(worker, eq(worker.id, agentToken.workerId))
      .innerJoin(agentNft, eq(agentNft.nftId, agentToken.nftId))
      .where(where),
  ]);
  const items = rows.map((row): TokenListItem => {
    const decimals = pairDecimalsOf(row.side);
    return {
      address: row.address,
      symbol: row.symbol,
      name: row.name,
      spawnedAt: row.spawnedAt,
      tvl: formatAmount(row.tvl, decimals),
      volume24h: formatAmount(row.volume24h, decimals),
      ...stableValues(row.side, row.tvl, row.volume24h, pricing),
      holders: row.holders,
      workerStatus: row.workerStatus as TokenListItem["workerStatus"],
      boosted: row.boosted,
    };
  });
  return toPage(items, query, total?.n ?? 0);
}

export async function tokenDetail(db: Db, now: number, pricing: Pricing, tokenRef: string): Promise<TokenDetail> {
  const { token, pool: p, worker: w, nft } = await findToken(db, tokenRef);
  const [volume, lastAction] = await Promise.all([
    pairVolume24h(db, token.address, now),
    db
      .select({ timestamp: action.timestamp })
      .from(action)
      .where(eq(action.targetTokenId, token.nftId))
      .orderBy(desc(action.entryId))
      .limit(1),
  ]);
  const decimals = pairDecimalsOf(p.side);
  return {
    token: {
      address: token.address,
      name: token.name,
      symbol: token.symbol,
      decimals: token.decimals,
      totalSupply: formatAmount(token.totalSupply, TOKEN_DECIMALS),
      owner: token.owner,
      spawnedAt: token.spawnedAt,
    },
    pool: {
      address: p.address,
      side: p.side as TokenDetail["pool"]["side"],
      feeTier: p.feeTier,
      tvl: formatAmount(p.reservePair, decimals),
      volume24h: formatAmount(volume.volume, decimals),
      ...stableValues(p.side, p.reservePair, volume.volume, pricing),
      lastTradeAt: p.lastTradeAt,
    },
    worker: {
      id: Number(w.id),
      agentNftId: Number(w.agentNftId),
      ...workerStateAt(w, now),
      lastActionAt: lastAction[0]?.timestamp ?? null,
      actionCount: w.totalActions,
    },
    metadata: { description: nft.description, logoUri: nft.logoUri, website: nft.website },
    boost: {
      active: nft.boostExpiresAt !== null && nft.boostExpiresAt > now,
      tier: nft.boostTier,
      expiresAt: nft.boostExpiresAt,
    },
  };
}

/** Pair-asset volume and swap count of a token in the 24 hours before `now`. */
export async function pairVolume24h(db: Db, token: `0x${string}`, now: number) {
  const [row] = await db
    .select({
      volume: sql<bigint>`coalesce(sum(${swap.pairVolume}), 0)`.mapWith((value: string | number | bigint) =>
        BigInt(value),
      ),
      swaps: count(),
    })
    .from(swap)
    .where(and(eq(swap.token, token), gt(swap.timestamp, now - DAY)));
  return { volume: row?.volume ?? 0n, swaps: row?.swaps ?? 0 };
}
