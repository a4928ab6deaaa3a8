import { asc, eq, sql } from "drizzle-orm";
import { hourOf } from "../../indexer/action-hours.ts";
import {
  addTrade,
  CANDLE_INTERVALS,
  type CandleValues,
  candleBucket,
  openCandle,
  tradePrice,
} from "../../indexer/candles.ts";
import {
  action,
  actionHour,
  agentNft,
  agentToken,
  chainHead,
  holderCount,
  holding,
  pool,
  poolCandle,
  proposal,
  swap,
  worker,
} from "../../indexer/schema.ts";
import type { TestDatabase } from "./database.ts";

/**
 * Rows as the indexer writes them, with defaults, for tests and measurements. Addresses and
 * hashes are derived from small numbers so expectations stay readable.
 */

type Db = TestDatabase["db"];

export const addressOf = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as `0x${string}`;
export const hashOf = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as `0x${string}`;

export interface TokenFixture {
  n: number;
  symbol: string;
  side?: "STABLE" | "WRAPPED_NATIVE";
  spawnedAt: number;
  status?: "active" | "idle" | "suspended";
  reserves?: { token: bigint; pair: bigint; virtualPair: bigint };
  holders?: number;
  boost?: { tier: number; expiresAt: number };
  totalActions?: number;
}

/** Token n: NFT id 100 + n, worker id n, token address n, pool address 1000 + n. */
export async function insertToken(db: Db, t: TokenFixture) {
  const side = t.side ?? "STABLE";
  const nftId = BigInt(100 + t.n);
  const reserves = t.reserves ?? { token: 800_000_000n * 10n ** 18n, pair: 0n, virtualPair: 10_000n * 10n ** 6n };
  await db.insert(agentToken).values({
    address: addressOf(t.n),
    nftId,
    workerId: BigInt(t.n),
    name: `${t.symbol} agent`,
    symbol: t.symbol,
    decimals: 18,
    totalSupply: 1_000_000_000n * 10n ** 18n,
    owner: addressOf(500 + t.n),
    pool: addressOf(1000 + t.n),
    poolSide: side,
    pairAsset: addressOf(side === "STABLE" ? 9001 : 9002),
    feeTier: 3000,
    spawnFeeBurned: 10n ** 16n,
    spawnedAt: t.spawnedAt,
    spawnBlock: BigInt(t.n),
    spawnLogIndex: 0,
    spawnTxHash: hashOf(t.n),
  });
  await db.insert(pool).values({
    address: addressOf(1000 + t.n),
    token: addressOf(t.n),
    pairAsset: addressOf(side === "STABLE" ? 9001 : 9002),
    side,
    feeTier: 3000,
    reserveToken: reserves.token,
    reservePair: reserves.pair,
    virtualPair: reserves.virtualPair,
    swapCount: 0,
    volumeTotal: 0n,
    lastTradeAt: null,
    createdAt: t.spawnedAt,
  });
  await db.insert(agentNft).values({
    nftId,
    kind: "token",
    token: addressOf(t.n),
    workerId: BigInt(t.n),
    owner: addressOf(500 + t.n),
    description: `${t.symbol} description`,
    logoUri: `https://example.org/${t.symbol}.png`,
    website: `https://example.org/${t.symbol}`,
    boostTier: t.boost?.tier ?? null,
    boostExpiresAt: t.boost?.expiresAt ?? null,
    registeredAt: t.spawnedAt,
  });
  await db.insert(worker).values({
    id: BigInt(t.n),
    agentNftId: nftId,
    token: addressOf(t.n),
    operator: addressOf(700),
    status: t.status ?? "active",
    deployedAt: t.spawnedAt,
    lastActiveAt: t.spawnedAt,
    slippageCapBps: 100,
    mevProtection: "off",
    signalSubscriptions: ["price"],
    totalActions: t.totalActions ?? 0,
  });
  if (t.holders !== undefined) await db.insert(holderCount).values({ token: addressOf(t.n), holders: t.holders });
  return { nftId, address: addressOf(t.n), workerId: BigInt(t.n) };
}

export async function insertAgent(db: Db, nftId: number, kind: "queen" | "scout", registeredAt: number) {
  await db.insert(agentNft).values({
    nftId: BigInt(nftId),
    kind,
    operator: addressOf(800 + nftId),
    owner: addressOf(1),
    description: "",
    logoUri: "",
    website: "",
    registeredAt,
  });
}

export interface ActionFixture {
  entryId: number;
  targetTokenId: bigint;
  sourceTier: "queen" | "scout" | "worker";
  sourceAgentId?: bigint;
  actionType: string;
  timestamp: number;
  isOverride?: boolean;
  payload?: Record<string, unknown> | null;
}

export const actionRow = (a: ActionFixture) => ({
  entryId: BigInt(a.entryId),
  targetTokenId: a.targetTokenId,
  sourceTier: a.sourceTier,
  sourceAgentId: a.sourceAgentId ?? 1n,
  operator: addressOf(700),
  actionType: a.actionType,
  payload: a.payload === undefined ? { n: a.entryId } : a.payload,
  payloadRaw: "0x" as `0x${string}`,
  reasonCode: "TEST",
  isOverride: a.isOverride ?? a.actionType === "override",
  blockNumber: BigInt(1000 + a.entryId),
  timestamp: a.timestamp,
  txHash: hashOf(a.entryId),
});

/** Inserts in batches (PGlite takes one statement's parameters at a time), with the hourly counts the handler keeps. */
export async function insertActions(db: Db, actions: ActionFixture[]) {
  for (let i = 0; i < actions.length; i += 1000) {
    await db.insert(action).values(actions.slice(i, i + 1000).map(actionRow));
  }
  const hours = new Map<string, { targetTokenId: bigint; hour: number; actions: number }>();
  for (const a of actions) {
    const key = `${a.targetTokenId}:${hourOf(a.timestamp)}`;
    const bucket = hours.get(key) ?? { targetTokenId: a.targetTokenId, hour: hourOf(a.timestamp), actions: 0 };
    bucket.actions++;
    hours.set(key, bucket);
  }
  for (const bucket of hours.values()) {
    await db
      .insert(actionHour)
      .values(bucket)
      .onConflictDoUpdate({
        target: [actionHour.targetTokenId, actionHour.hour],
        set: { actions: sql`${actionHour.actions} + ${bucket.actions}` },
      });
  }
}

export interface SwapFixture {
  n: number;
  tokenN: number;
  isBuy: boolean;
  amountIn: bigint;
  amountOut: bigint;
  timestamp: number;
  block: number;
  logIndex?: number;
  /** Default: account 600 + n. */
  trader?: `0x${string}`;
}

/** A swap row as the handler writes it; `seq` is its number in the pool (set by renumberSwaps). */
export const swapRow = (s: SwapFixture, seq = 0) => ({
  id: `${hashOf(10_000 + s.n)}-${s.logIndex ?? 0}`,
  pool: addressOf(1000 + s.tokenN),
  token: addressOf(s.tokenN),
  sender: s.trader ?? addressOf(600 + s.n),
  recipient: s.trader ?? addressOf(600 + s.n),
  isBuy: s.isBuy,
  amountIn: s.amountIn,
  amountOut: s.amountOut,
  fee: 0n,
  pairVolume: s.isBuy ? s.amountIn : s.amountOut,
  tokenVolume: s.isBuy ? s.amountOut : s.amountIn,
  timestamp: s.timestamp,
  blockNumber: BigInt(s.block),
  logIndex: s.logIndex ?? 0,
  seq,
  txHash: hashOf(10_000 + s.n),
});

/**
 * Inserts a swap with what the Swap handler keeps beside it: its number in the pool, the pool's
 * swap count and the pool's candles. Swaps may be inserted out of chain order: the numbers and
 * candles are rebuilt from all of the pool's swaps.
 */
export async function insertSwap(db: Db, s: SwapFixture) {
  await db.insert(swap).values(swapRow(s));
  await renumberSwaps(db, addressOf(1000 + s.tokenN));
}

/** Numbers a pool's swaps 1, 2, 3... in chain order, sets its swap count and rebuilds its candles. */
export async function renumberSwaps(db: Db, poolAddress: `0x${string}`) {
  await db.execute(sql`
    update ${swap} set seq = numbered.n
    from (select id, row_number() over (order by block_number, log_index) as n from ${swap} where pool = ${poolAddress}) numbered
    where ${swap}.id = numbered.id`);
  const swaps = await db
    .select({ pairVolume: swap.pairVolume, tokenVolume: swap.tokenVolume, timestamp: swap.timestamp })
    .from(swap)
    .where(eq(swap.pool, poolAddress))
    .orderBy(asc(swap.blockNumber), asc(swap.logIndex));
  await db.update(pool).set({ swapCount: swaps.length }).where(eq(pool.address, poolAddress));
  await db.delete(poolCandle).where(eq(poolCandle.pool, poolAddress));
  const rows = candlesOf(poolAddress, swaps);
  for (let i = 0; i < rows.length; i += 1000) await db.insert(poolCandle).values(rows.slice(i, i + 1000));
}

/** The pool_candle rows of a pool's swaps (in chain order), folded as the Swap handler folds them. */
export function candlesOf(
  poolAddress: `0x${string}`,
  swaps: readonly { pairVolume: bigint; tokenVolume: bigint; timestamp: number }[],
) {
  const rows = new Map<string, typeof poolCandle.$inferInsert>();
  for (const s of swaps) {
    const price = tradePrice(s.pairVolume, s.tokenVolume);
    if (price === null) continue;
    const trade = { price, pairAmount: s.pairVolume, tokenAmount: s.tokenVolume };
    for (const interval of CANDLE_INTERVALS) {
      const bucketStart = candleBucket(interval, s.timestamp);
      const key = `${interval}:${bucketStart}`;
      const current = rows.get(key) as CandleValues | undefined;
      const values = current ? addTrade(current, trade) : openCandle(trade);
      rows.set(key, { pool: poolAddress, interval, bucketStart, ...values });
    }
  }
  return [...rows.values()];
}

/** Balances of token n (address n, pool 1000 + n), as the Transfer handler keeps them. */
export async function insertHoldings(db: Db, tokenN: number, balances: readonly [`0x${string}`, bigint][]) {
  for (let i = 0; i < balances.length; i += 1000) {
    await db
      .insert(holding)
      .values(
        balances.slice(i, i + 1000).map(([account, balance]) => ({ token: addressOf(tokenN), account, balance })),
      );
  }
}

export async function insertProposal(
  db: Db,
  p: { id: number; workerId: bigint; endTime: number; startTime?: number; executedAt?: number },
) {
  await db.insert(proposal).values({
    id: BigInt(p.id),
    workerId: p.workerId,
    token: addressOf(Number(p.workerId)),
    proposer: addressOf(1),
    proposedAt: p.endTime - 4 * 86_400,
    startTime: p.startTime ?? p.endTime - 3 * 86_400,
    endTime: p.endTime,
    quorumThreshold: 40n * 10n ** 24n,
    passingThresholdBps: 5000,
    slippageCapBps: 50,
    mevProtection: "batch_auction",
    signalSubscriptions: ["price"],
    description: "test",
    yesWeight: 0n,
    noWeight: 0n,
    abstainWeight: 0n,
    voteCount: 0,
    executedAt: p.executedAt ?? null,
    txHash: hashOf(20_000 + p.id),
  });
}

export async function setChainHead(db: Db, timestamp: number, blockNumber = 1n) {
  await db.insert(chainHead).values({ chainId: 31337, blockNumber, timestamp }).onConflictDoUpdate({
    target: chainHead.chainId,
    set: { blockNumber, timestamp },
  });
}
