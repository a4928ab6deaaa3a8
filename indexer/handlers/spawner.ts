import { ponder } from "ponder:registry";
import { agentToken, pool } from "ponder:schema";
import { nameOf, POOL_SIDES } from "../enums.ts";
import { lc, observe, seconds } from "./shared.ts";
import { uncountLaunchHolding } from "./token.ts";

// The pool's launch Sync precedes this event in the same transaction, before the pool row
// exists: the row starts from the same reserves the event carries.
ponder.on("AgentSpawner:AgentSpawned", async ({ event, context }) => {
  await observe(event, context);
  const a = event.args;
  const side = nameOf(POOL_SIDES, a.poolSide);
  await context.db.insert(agentToken).values({
    address: lc(a.token),
    nftId: a.nftId,
    workerId: a.workerId,
    name: a.name,
    symbol: a.symbol,
    decimals: 18,
    totalSupply: a.totalSupply,
    owner: lc(a.owner),
    pool: lc(a.pool),
    poolSide: side,
    pairAsset: lc(a.pairAsset),
    feeTier: a.feeTier,
    spawnFeeBurned: a.feeBurned,
    spawnedAt: seconds(event),
    spawnBlock: event.block.number,
    spawnLogIndex: event.log.logIndex,
    spawnTxHash: event.transaction.hash,
  });
  await context.db.insert(pool).values({
    address: lc(a.pool),
    token: lc(a.token),
    pairAsset: lc(a.pairAsset),
    side,
    feeTier: a.feeTier,
    reserveToken: a.poolSupply,
    reservePair: 0n,
    virtualPair: a.virtualPairReserve,
    swapCount: 0,
    volumeTotal: 0n,
    lastTradeAt: null,
    createdAt: seconds(event),
  });
  await uncountLaunchHolding(context, lc(a.token), lc(a.pool));
});
