import { and, count, desc, eq, gt, isNull, lte, or, sql } from "ponder";
import { action, agentNft, agentToken, holderCount, pool, swap, worker } from "../../indexer/schema.ts";
import type { Condition, Db } from "../db.ts";
import { DAY } from "../shared/clock.ts";
import { offsetOf, type Page, type PageQuery, pageOf } from "../shared/pagination.ts";
import { findToken } from "../shared/token-lookup.ts";
import { formatAmount, PAIR_DECIMALS, pairDecimalsOf, TOKEN_DECIMALS } from "../shared/units.ts";
import type { TokenDetail, TokenListItem, TokenSort } from "./routes.ts";

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

/** Scales a pair-asset amount to 18 decimals, so pools of both pair assets rank on one scale. */
const scaledTo18 = (amount: ReturnType<typeof sql>) =>
  sql`(${amount}) * (case ${agentToken.poolSide} ${sql.join(
    Object.entries(PAIR_DECIMALS).map(
      ([side, decimals]) => sql`when ${side} then ${(10n ** BigInt(18 - decimals)).toString()}::numeric`,
    ),
    sql` `,
  )} end)`;

export async function listTokens(db: Db, now: number, filter: TokenFilter, query: PageQuery): Promise<Page<TokenListItem>> {
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
    volume: [desc(scaledTo18(volume24h))],
    tvl: [desc(scaledTo18(sql`${pool.tvl}`))],
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
        tvl: pool.tvl,
        volume24h,
        holders,
        workerStatus: worker.status,
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
      holders: row.holders,
      workerStatus: row.workerStatus as TokenListItem["workerStatus"],
      boosted: row.boosted,
    };
  });
  return pageOf(items, query, total?.n ?? 0);
}

export async function tokenDetail(db: Db, now: number, tokenRef: string): Promise<TokenDetail> {
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
      tvl: formatAmount(p.tvl, decimals),
      volume24h: formatAmount(volume.volume, decimals),
      lastTradeAt: p.lastTradeAt,
    },
    worker: {
      id: Number(w.id),
      agentNftId: Number(w.agentNftId),
      status: w.status as TokenDetail["worker"]["status"],
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
      volume: sql<bigint>`coalesce(sum(${swap.pairVolume}), 0)`.mapWith((value: string | number | bigint) => BigInt(value)),
      swaps: count(),
    })
    .from(swap)
    .where(and(eq(swap.token, token), gt(swap.timestamp, now - DAY)));
  return { volume: row?.volume ?? 0n, swaps: row?.swaps ?? 0 };
}
