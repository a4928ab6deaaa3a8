import {
  BPS,
  inputToReach,
  maxInputWithinCap,
  minOutWithinCap,
  moveBps,
  PRICE_SCALE,
  quote,
  spotPrice,
} from "../pool/pool-math.ts";
import type { Directive } from "./directives.ts";
import { followsMove, moveSeen, poolReference } from "./reference.ts";
import type { ActionView, TokenView, TradeIntent, WorkerView } from "./types.ts";

/**
 * A worker's decision: a band market maker. Around a reference price (the exchange's when the
 * token is listed there, otherwise the pool's own time-weighted average, which one block cannot
 * move: reference.ts) it keeps a band of `bandBps`; a pool price above the band is sold back to
 * its edge, one below is bought back, and inside the band the worker steers its inventory toward
 * a target share of tokens. A band trade that would follow the reference's own move waits until
 * the scouts and the queen have seen that move. Every swap's size stays within the worker's
 * slippage cap and carries the minimum-out guard computed from it.
 * Subscribed signals change the reaction: `price` trades back to the reference itself, `volume`
 * doubles the band, `whale` halves the inventory target.
 */

export interface WorkerParams {
  readonly bandBps: bigint;
  /** The window of the pool's time-weighted average (the reference). */
  readonly movingAverageSec: number;
  /** Fewer distinct blocks' prices in the window than this, and the average is no reference. */
  readonly minReferenceBlocks: number;
  readonly targetInventoryBps: bigint;
  /** Drift of the token share beyond this is rebalanced. */
  readonly rebalanceThresholdBps: bigint;
  /** A rebalance closes at most this share of the gap to the target at once. */
  readonly rebalanceStepBps: bigint;
  /** How far below the cap's largest input a trade stays, so rounding never trips the guard. */
  readonly capHeadroomBps: bigint;
  /** Flags older than this no longer move the worker. */
  readonly signalMemorySec: number;
}

export const DEFAULT_WORKER_PARAMS: WorkerParams = {
  bandBps: 300n,
  movingAverageSec: 600,
  minReferenceBlocks: 3,
  targetInventoryBps: 5_000n,
  rebalanceThresholdBps: 1_500n,
  rebalanceStepBps: 2_500n,
  capHeadroomBps: 100n,
  signalMemorySec: 300,
};

export interface WorkerInput {
  readonly now: number;
  readonly token: TokenView;
  readonly worker: WorkerView;
  /** The operator's balances: agent tokens and pair asset. */
  readonly inventory: { readonly token: bigint; readonly pair: bigint };
  readonly directives: readonly Directive[];
  /** Recent scout flags on this token. */
  readonly flags: readonly ActionView[];
  /** The queen's recent entries on this token: the ones naming a flag as their `cause` answer it. */
  readonly answers?: readonly ActionView[];
  /** The last block the worker's picture includes: its trades say so, so a directive it could not yet see is not held against it. */
  readonly observedBlock?: bigint;
  /** The exchange's price of the token (pair per token x PRICE_SCALE), when it is listed. */
  readonly reference?: bigint;
  readonly params?: WorkerParams;
}

export function decideWorker(input: WorkerInput): TradeIntent[] {
  const params = input.params ?? DEFAULT_WORKER_PARAMS;
  const { token, worker, now } = input;
  // Idle workers watch, suspended ones do nothing, and a pause directive stops trading.
  if (worker.status !== "active") return [];
  if (input.directives.some((d) => d.instruction === "pause_trading")) return [];
  const pool = token.reserves;
  const price = spotPrice(pool);
  if (price === 0n) return [];
  const capBps = BigInt(worker.config.slippageCapBps);
  const subscribed = (signal: string) =>
    worker.config.signalSubscriptions.includes(signal) &&
    input.flags.some((f) => f.payload?.signal === signal && f.time >= now - params.signalMemorySec);

  let bandBps = params.bandBps;
  for (const d of input.directives)
    if (d.instruction === "widen_band") bandBps = (bandBps * BigInt(Math.round(d.bandMultiplier * 100))) / 100n;
  if (subscribed("volume")) bandBps *= 2n;
  let targetShare = params.targetInventoryBps;
  for (const d of input.directives)
    if (d.instruction === "reduce_exposure" && d.targetInventoryBps !== undefined)
      targetShare = BigInt(d.targetInventoryBps) < targetShare ? BigInt(d.targetInventoryBps) : targetShare;
  if (subscribed("whale")) targetShare /= 2n;

  // The pool's own reference, unless an external one is given; trusted only over enough blocks.
  const own = input.reference === undefined ? poolReference(token.prices, now, params.movingAverageSec) : undefined;
  const trusted = own !== undefined && own.blocks >= params.minReferenceBlocks ? own : undefined;
  const reference = input.reference ?? trusted?.price;
  const context = {
    price: price.toString(),
    reference: reference?.toString() ?? "none",
    ...(trusted === undefined ? {} : { referenceMoveBps: Number(trusted.moveBps) }),
    bandBps: Number(bandBps),
    slippageCapBps: worker.config.slippageCapBps,
    ...(input.observedBlock === undefined ? {} : { observedBlock: input.observedBlock.toString() }),
  };

  const sized = (isBuy: boolean, wanted: bigint, held: bigint): bigint => {
    const cap = (maxInputWithinCap(pool, isBuy, capBps) * (BPS - params.capHeadroomBps)) / BPS;
    let amount = wanted < cap ? wanted : cap;
    if (amount > held) amount = held;
    return amount;
  };
  const intent = (
    actionType: TradeIntent["actionType"],
    reasonCode: string,
    isBuy: boolean,
    amountIn: bigint,
    why: TradeIntent["why"],
  ): TradeIntent[] => {
    const minAmountOut = minOutWithinCap(pool, isBuy, amountIn, capBps);
    // Dust trades, whose rounded output falls below their own guard, would only revert.
    if (amountIn <= 0n || minAmountOut <= 0n || quote(pool, isBuy, amountIn).amountOut < minAmountOut) return [];
    return [
      {
        kind: "trade",
        targetNftId: token.nftId,
        actionType,
        reasonCode,
        isBuy,
        amountIn,
        minAmountOut,
        why: {
          ...context,
          ...why,
          side: isBuy ? "buy" : "sell",
          amountIn: amountIn.toString(),
          minAmountOut: minAmountOut.toString(),
        },
      },
    ];
  };

  if (reference !== undefined && reference > 0n) {
    const deviation = moveBps(reference, price);
    if (deviation > bandBps || deviation < -bandBps) {
      const revert = subscribed("price");
      const edge = deviation > 0n ? (reference * (BPS + bandBps)) / BPS : (reference * (BPS - bandBps)) / BPS;
      const move = inputToReach(pool, revert ? reference : edge);
      // Toward a reference that moved beyond the cap (or the band, if narrower) the way this trade
      // goes: not until the scouts have flagged that move and the queen has answered (her answer
      // widens the band). Meanwhile the worker keeps only its inventory.
      const limit = capBps < params.bandBps ? capBps : params.bandBps;
      const waiting =
        trusted !== undefined &&
        followsMove(trusted, move.isBuy, limit) &&
        !moveSeen(input.flags, input.answers ?? [], token.nftId, trusted, limit, now - params.movingAverageSec);
      if (!waiting) {
        const amount = sized(move.isBuy, move.amountIn, move.isBuy ? input.inventory.pair : input.inventory.token);
        const reason = revert ? "PRICE_SIGNAL_REVERT" : deviation > 0n ? "PRICE_ABOVE_BAND" : "PRICE_BELOW_BAND";
        return intent("trade", reason, move.isBuy, amount, { deviationBps: Number(deviation) });
      }
    }
  }

  // Inside the band: steer the inventory's token share (valued at the pool price) to the target.
  const tokenValue = (input.inventory.token * price) / PRICE_SCALE;
  const total = tokenValue + input.inventory.pair;
  if (total === 0n) return [];
  const share = (tokenValue * BPS) / total;
  const gap = share - targetShare;
  if (gap <= params.rebalanceThresholdBps && gap >= -params.rebalanceThresholdBps) return [];
  const gapValue = ((gap < 0n ? -gap : gap) * total * params.rebalanceStepBps) / (BPS * BPS);
  const isBuy = gap < 0n;
  const wanted = isBuy ? gapValue : (gapValue * PRICE_SCALE) / price;
  // Rebalancing is not urgent: a quarter of the cap's size at most, so the worker itself does not
  // move its market the way the band trades answer.
  let gentle = (maxInputWithinCap(pool, isBuy, capBps) * (BPS - params.capHeadroomBps)) / BPS / 4n;
  // Nor past the band's edge on its side: a few rebalances in a row would otherwise push the price
  // out of the band, the band trade would push it back, and the worker would pay its own impact
  // both ways, tick after tick.
  if (reference !== undefined && reference > 0n) {
    const edge = inputToReach(pool, (reference * (isBuy ? BPS + bandBps : BPS - bandBps)) / BPS);
    const room = edge.isBuy === isBuy ? edge.amountIn : 0n;
    if (room < gentle) gentle = room;
  }
  const amount = sized(isBuy, wanted < gentle ? wanted : gentle, isBuy ? input.inventory.pair : input.inventory.token);
  return intent("rebalance", "INVENTORY_DRIFT", isBuy, amount, {
    tokenShareBps: Number(share),
    targetShareBps: Number(targetShare),
  });
}
