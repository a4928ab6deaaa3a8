import { and, asc, desc, eq, sql } from "ponder";
import { agentToken, boost, pool, proposal, swap, vote } from "../../indexer/schema.ts";
import { toVoteJson } from "../agents/proposals.ts";
import type { Condition, Db } from "../db.ts";
import { toTrade } from "../launchpad/pool.ts";
import { toPoolTrade } from "../launchpad/trades.ts";
import { formatAmount, pairDecimalsOf, TOKEN_DECIMALS } from "../shared/units.ts";
import { type ChainKey, compareKeys, eventIdOf } from "./event-id.ts";
import type { FeedEvent, FeedSource } from "./feed-event.ts";
import {
  type BoostEventData,
  LAUNCHPAD_EVENTS,
  type LaunchpadEventName,
  type SpawnEventData,
  type SwapEventData,
  type VoteEventData,
} from "./routes.ts";

/**
 * Launchpad events as one stream in chain order: spawns (agent_token), swaps in agent pools,
 * votes and boosts, each keyed by its block and log index (a (block_number, log_index) index per
 * table), so "after a key" is one index range per table, merged here.
 */

export type LaunchpadData = SpawnEventData | SwapEventData | VoteEventData | BoostEventData;
export type LaunchpadEvent = FeedEvent<LaunchpadData>;

export interface LaunchpadFilter {
  types?: ReadonlySet<LaunchpadEventName>;
  tokenAddress?: `0x${string}`;
}

interface Range {
  after?: ChainKey | null;
  upTo?: ChainKey;
  tokenAddress?: `0x${string}`;
  /** The oldest `limit` (false) or the newest `limit` (true) of the range. */
  newest: boolean;
  limit: number;
}

type Column = Parameters<typeof asc>[0];

/** One table's share of a range: its key columns compared as a row, so the index serves it. */
function keyRange(block: Column, index: Column, range: Range): (Condition | undefined)[] {
  const { after, upTo } = range;
  return [
    after ? sql`(${block}, ${index}) > (${after[0]}::numeric, ${after[1]}::integer)` : undefined,
    upTo ? sql`(${block}, ${index}) <= (${upTo[0]}::numeric, ${upTo[1]}::integer)` : undefined,
  ];
}

const order = (range: Range, block: Column, index: Column) =>
  range.newest ? [desc(block), desc(index)] : [asc(block), asc(index)];

const eventOf = <D extends LaunchpadData>(
  event: LaunchpadEventName,
  block: bigint,
  index: number,
  txHash: string,
  data: D,
): LaunchpadEvent => {
  const key: ChainKey = [Number(block), index];
  return { key, id: eventIdOf(key, txHash), event, data };
};

const readers: Record<LaunchpadEventName, (db: Db, range: Range) => Promise<LaunchpadEvent[]>> = {
  async spawn(db, range) {
    const t = agentToken;
    const rows = await db
      .select()
      .from(t)
      .where(and(...keyRange(t.spawnBlock, t.spawnLogIndex, range), tokenIs(t.address, range)))
      .orderBy(...order(range, t.spawnBlock, t.spawnLogIndex))
      .limit(range.limit);
    return rows.map((r) =>
      eventOf<SpawnEventData>("spawn", r.spawnBlock, r.spawnLogIndex, r.spawnTxHash, {
        token: {
          address: r.address,
          name: r.name,
          symbol: r.symbol,
          totalSupply: formatAmount(r.totalSupply, TOKEN_DECIMALS),
          owner: r.owner,
        },
        pool: { address: r.pool, side: r.poolSide as SpawnEventData["pool"]["side"], feeTier: r.feeTier },
        worker: { id: Number(r.workerId), agentNftId: Number(r.nftId) },
        txHash: r.spawnTxHash,
        spawnedAt: r.spawnedAt,
      }),
    );
  },
  async swap(db, range) {
    const rows = await db
      .select({ swap, side: pool.side })
      .from(swap)
      .innerJoin(pool, eq(pool.address, swap.pool))
      .where(and(...keyRange(swap.blockNumber, swap.logIndex, range), tokenIs(swap.token, range)))
      .orderBy(...order(range, swap.blockNumber, swap.logIndex))
      .limit(range.limit);
    return rows.map(({ swap: s, side }) =>
      eventOf<SwapEventData>("swap", s.blockNumber, s.logIndex, s.txHash, {
        ...toTrade(s, pairDecimalsOf(side)),
        ...toPoolTrade(s, pairDecimalsOf(side)),
        tokenAddress: s.token,
        poolAddress: s.pool,
      }),
    );
  },
  async vote(db, range) {
    const rows = await db
      .select({ vote, tokenAddress: proposal.token })
      .from(vote)
      .innerJoin(proposal, eq(proposal.id, vote.proposalId))
      .where(and(...keyRange(vote.blockNumber, vote.logIndex, range), tokenIs(proposal.token, range)))
      .orderBy(...order(range, vote.blockNumber, vote.logIndex))
      .limit(range.limit);
    return rows.map(({ vote: v, tokenAddress }) =>
      eventOf<VoteEventData>("vote", v.blockNumber, v.logIndex, v.txHash, { ...toVoteJson(v), tokenAddress }),
    );
  },
  async boost(db, range) {
    const rows = await db
      .select()
      .from(boost)
      .where(and(...keyRange(boost.blockNumber, boost.logIndex, range), tokenIs(boost.token, range)))
      .orderBy(...order(range, boost.blockNumber, boost.logIndex))
      .limit(range.limit);
    return rows.map((b) =>
      eventOf<BoostEventData>("boost", b.blockNumber, b.logIndex, b.txHash, {
        tokenAddress: b.token,
        agentNftId: Number(b.agentNftId),
        buyer: b.buyer,
        tier: b.tier,
        expiresAt: b.expiresAt,
        paid: formatAmount(b.paid, TOKEN_DECIMALS),
        txHash: b.txHash,
        timestamp: b.timestamp,
      }),
    );
  },
};

function tokenIs(column: Column, range: Range): Condition | undefined {
  return range.tokenAddress === undefined ? undefined : eq(column, range.tokenAddress);
}

/** The range over every table asked for, merged in chain order. */
async function readRange(db: Db, range: Range, types: readonly LaunchpadEventName[]): Promise<LaunchpadEvent[]> {
  const parts = await Promise.all(types.map((type) => readers[type](db, range)));
  const merged = parts.flat().sort((a, b) => compareKeys(a.key, b.key));
  return range.newest ? merged.slice(-range.limit) : merged.slice(0, range.limit);
}

export function launchpadSource(db: Db): FeedSource<LaunchpadData> {
  return {
    after: (key, limit) => readRange(db, { after: key, limit, newest: false }, LAUNCHPAD_EVENTS),
    newest: (limit) => readRange(db, { limit, newest: true }, LAUNCHPAD_EVENTS),
  };
}

/** The newest `limit` events matching `filter` in (after, upTo], in chain order: a client's catch-up. */
export function replayLaunchpad(
  db: Db,
  filter: LaunchpadFilter,
  after: ChainKey,
  upTo: ChainKey,
  limit: number,
): Promise<LaunchpadEvent[]> {
  const types = LAUNCHPAD_EVENTS.filter((type) => filter.types?.has(type) ?? true);
  return readRange(db, { after, upTo, tokenAddress: filter.tokenAddress, limit, newest: true }, types);
}

/** The live side of the filters: the same rules as `replayLaunchpad` applies in SQL. */
export function matchesLaunchpadFilter(filter: LaunchpadFilter, event: LaunchpadEvent): boolean {
  if (filter.types && !filter.types.has(event.event as LaunchpadEventName)) return false;
  if (filter.tokenAddress === undefined) return true;
  const data = event.data;
  const token = "tokenAddress" in data ? data.tokenAddress : data.token.address;
  return token === filter.tokenAddress;
}
