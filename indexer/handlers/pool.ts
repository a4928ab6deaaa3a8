import { ponder } from "ponder:registry";
import { liquidityEvent, pool, poolCandle, swap } from "ponder:schema";
import { addTrade, CANDLE_INTERVALS, candleBucket, openCandle, tradePrice } from "../candles.ts";
import { lc, logId, observe, seconds } from "./shared.ts";

ponder.on("AgentPool:Swap", async ({ event, context }) => {
  await observe(event, context);
  const address = lc(event.log.address);
  const row = await context.db.find(pool, { address });
  if (!row) throw new Error(`Swap on unknown pool ${address}`);
  const { sender, recipient, isBuy, amountIn, amountOut, fee } = event.args;
  const pairVolume = isBuy ? amountIn : amountOut;
  const tokenVolume = isBuy ? amountOut : amountIn;
  await context.db.insert(swap).values({
    id: logId(event),
    pool: address,
    token: row.token,
    sender: lc(sender),
    recipient: lc(recipient),
    isBuy,
    amountIn,
    amountOut,
    fee,
    pairVolume,
    tokenVolume,
    timestamp: seconds(event),
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    seq: row.swapCount + 1,
    txHash: event.transaction.hash,
  });
  await context.db.update(pool, { address }).set((current) => ({
    swapCount: current.swapCount + 1,
    volumeTotal: current.volumeTotal + pairVolume,
    lastTradeAt: seconds(event),
  }));
  const price = tradePrice(pairVolume, tokenVolume);
  if (price === null) return;
  const trade = { price, pairAmount: pairVolume, tokenAmount: tokenVolume };
  for (const interval of CANDLE_INTERVALS) {
    await context.db
      .insert(poolCandle)
      .values({ pool: address, interval, bucketStart: candleBucket(interval, seconds(event)), ...openCandle(trade) })
      .onConflictDoUpdate((current) => addTrade(current, trade));
  }
});

// The launch Sync comes before AgentSpawned creates the row, with the reserves that event
// carries anyway: only later Syncs need applying.
ponder.on("AgentPool:Sync", async ({ event, context }) => {
  await observe(event, context);
  const address = lc(event.log.address);
  if (!(await context.db.find(pool, { address }))) return;
  const { reserveToken, reservePair, virtualPair } = event.args;
  await context.db.update(pool, { address }).set({ reserveToken, reservePair, virtualPair });
});

ponder.on("AgentPool:Mint", async ({ event, context }) => {
  await observe(event, context);
  const { to, amountToken, amountPair, shares } = event.args;
  await context.db.insert(liquidityEvent).values({
    id: logId(event),
    pool: lc(event.log.address),
    kind: "add",
    provider: lc(to),
    amountToken,
    amountPair,
    shares,
    timestamp: seconds(event),
    txHash: event.transaction.hash,
  });
});

ponder.on("AgentPool:Burn", async ({ event, context }) => {
  await observe(event, context);
  const { sender, amountToken, amountPair, shares } = event.args;
  await context.db.insert(liquidityEvent).values({
    id: logId(event),
    pool: lc(event.log.address),
    kind: "remove",
    provider: lc(sender),
    amountToken,
    amountPair,
    shares,
    timestamp: seconds(event),
    txHash: event.transaction.hash,
  });
});
