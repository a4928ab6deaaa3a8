import {
  BPS,
  maxInputWithinCap,
  minOutWithinCap,
  PRICE_SCALE,
  type PoolReserves,
  quote,
  spotPrice,
} from "../pool/pool-math.ts";
import type { TradeIntent } from "./types.ts";

/**
 * `BatchAuction` workers do not send each trade: their intents of a window are netted (buys
 * against sells, valued at the pool price when the window closes) and sent as one swap, so the
 * window's flow shows the market one trade, not a sequence to trade against.
 */
export function netBatch(
  pending: readonly TradeIntent[],
  pool: PoolReserves,
  capBps: bigint,
  inventory: { readonly token: bigint; readonly pair: bigint },
  headroomBps = 100n,
): TradeIntent | undefined {
  if (pending.length === 0) return undefined;
  const price = spotPrice(pool);
  if (price === 0n) return undefined;
  let net = 0n; // pair-asset value: positive buys, negative sells
  for (const t of pending) net += t.isBuy ? t.amountIn : -((t.amountIn * price) / PRICE_SCALE);
  if (net === 0n) return undefined;
  const isBuy = net > 0n;
  const wanted = isBuy ? net : (-net * PRICE_SCALE) / price;
  const cap = (maxInputWithinCap(pool, isBuy, capBps) * (BPS - headroomBps)) / BPS;
  const held = isBuy ? inventory.pair : inventory.token;
  let amountIn = wanted < cap ? wanted : cap;
  if (amountIn > held) amountIn = held;
  const minAmountOut = minOutWithinCap(pool, isBuy, amountIn, capBps);
  if (amountIn <= 0n || minAmountOut <= 0n || quote(pool, isBuy, amountIn).amountOut < minAmountOut) return undefined;
  const first = pending[0]!;
  return {
    kind: "trade",
    targetNftId: first.targetNftId,
    actionType: "trade",
    reasonCode: "BATCH_AUCTION",
    isBuy,
    amountIn,
    minAmountOut,
    why: {
      side: isBuy ? "buy" : "sell",
      amountIn: amountIn.toString(),
      minAmountOut: minAmountOut.toString(),
      price: price.toString(),
      netted: pending.length,
      slippageCapBps: Number(capBps),
      reasons: [...new Set(pending.map((t) => t.reasonCode))].join(","),
    },
  };
}
