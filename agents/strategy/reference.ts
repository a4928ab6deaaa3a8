import { moveBps } from "../pool/pool-math.ts";
import type { ActionView, PricePoint } from "./types.ts";

/**
 * A worker's reference price from its pool's own history, built so that one block (or one
 * account in one transaction) cannot move it.
 *
 * - Time-weighted (as Uniswap's TWAP oracles): each price counts for the seconds it stood, until
 *   the next price point (the last one until `now`); the price standing when the window opens
 *   counts from the window's start. A price that stood for no time (a push, dust trades and a pull
 *   back in one transaction or one block) weighs nothing. Planting a price costs holding it.
 * - Trusted only once at least `minBlocks` distinct blocks' prices stood in the window.
 * - Its move across the window (from the average of the window before) is what a trade that
 *   follows it must have had seen: see `followsMove` and `moveSeen`.
 */

/** One point per block: a second price in the same block replaces the first (it stood no time). */
export function pushPrice(prices: PricePoint[], point: PricePoint): void {
  const last = prices[prices.length - 1];
  if (last !== undefined && last.block === point.block) prices[prices.length - 1] = point;
  else prices.push(point);
}

export interface Twap {
  readonly price: bigint;
  /** Distinct blocks whose price stood for some time in the window. */
  readonly blocks: number;
}

/**
 * The time-weighted average of `prices` (oldest first) over [from, to], exact (rounded down).
 * Only the part of the window the history covers counts; undefined when it covers none of it.
 */
export function twap(prices: readonly PricePoint[], from: number, to: number): Twap | undefined {
  let sum = 0n;
  let seconds = 0n;
  const blocks = new Set<bigint>();
  for (let i = 0; i < prices.length; i++) {
    const p = prices[i]!;
    if (p.time >= to) break;
    const start = p.time > from ? p.time : from;
    const next = prices[i + 1]?.time ?? to;
    const end = next < to ? next : to;
    if (end <= start) continue;
    const stood = BigInt(end - start);
    sum += p.price * stood;
    seconds += stood;
    blocks.add(p.block);
  }
  if (seconds === 0n) return undefined;
  return { price: sum / seconds, blocks: blocks.size };
}

export interface PoolReference {
  /** The time-weighted average over [now - windowSec, now]. */
  readonly price: bigint;
  readonly blocks: number;
  /** The average over the window before (or, with less history, the earliest price known). */
  readonly anchor: bigint;
  /** The reference's move across the window: from `anchor` to `price`, in bps. */
  readonly moveBps: bigint;
}

export function poolReference(
  prices: readonly PricePoint[],
  now: number,
  windowSec: number,
): PoolReference | undefined {
  const current = twap(prices, now - windowSec, now);
  if (current === undefined) return undefined;
  const anchor = twap(prices, now - 2 * windowSec, now - windowSec)?.price ?? prices[0]!.price;
  return { price: current.price, blocks: current.blocks, anchor, moveBps: moveBps(anchor, current.price) };
}

/**
 * Whether a band trade would follow the reference's move beyond `capBps`: a buy toward a reference
 * that rose, a sell toward one that fell. That is what a planted reference asks for (the price was
 * pushed, held, and pulled back, and the average remembers it). Band keeping in a real move
 * trades the other way: the price leads, the average lags behind it, and the worker leans against
 * the price, toward where the average came from.
 */
export function followsMove(reference: PoolReference, isBuy: boolean, capBps: bigint): boolean {
  return isBuy ? reference.moveBps > capBps : reference.moveBps < -capBps;
}

/** The move a `reference` flag names (payload.evidence.changeBps), if it is one. */
function flaggedMove(flag: ActionView): bigint | undefined {
  if (flag.tier !== "scout" || flag.actionType !== "flag" || flag.payload?.signal !== "reference") return undefined;
  const change = (flag.payload.evidence as { changeBps?: unknown } | undefined)?.changeBps;
  return typeof change === "number" && Number.isSafeInteger(change) ? BigInt(change) : undefined;
}

/**
 * The newest scout flag on `targetNftId` within the window that has seen this move: the same
 * direction, and at most `capBps` less than it (a reference that moved on since needs a new flag).
 */
export function coveringFlag(
  flags: readonly ActionView[],
  targetNftId: bigint,
  reference: PoolReference,
  capBps: bigint,
  since: number,
): ActionView | undefined {
  for (let i = flags.length - 1; i >= 0; i--) {
    const f = flags[i]!;
    const change = flaggedMove(f);
    if (change === undefined || f.targetNftId !== targetNftId || f.time < since) continue;
    const move = reference.moveBps;
    const abs = (x: bigint) => (x < 0n ? -x : x);
    if (change > 0n === move > 0n && abs(change) + capBps >= abs(move)) return f;
  }
  return undefined;
}

/** Whether the scouts have flagged this move and the queen has answered that flag (`cause`). */
export function moveSeen(
  flags: readonly ActionView[],
  answers: readonly ActionView[],
  targetNftId: bigint,
  reference: PoolReference,
  capBps: bigint,
  since: number,
): boolean {
  return flags.some((f) => {
    if (coveringFlag([f], targetNftId, reference, capBps, since) === undefined) return false;
    const cause = f.entryId.toString();
    return answers.some((a) => a.tier === "queen" && a.targetNftId === targetNftId && a.payload?.cause === cause);
  });
}

/** The most a band may be widened (directives.ts accepts multipliers up to 10). */
const MAX_MULTIPLIER = 10n;

/**
 * The queen's answer to a `reference` flag: widen the worker's band until the flagged history has
 * left the window, so that the band covers the gap the move opened (the larger of the move and the
 * price's distance from the reference) plus the worker's cap. The worker then trades toward that
 * reference only if the price runs beyond where the move had left it. A gap beyond ten bands
 * pauses the worker instead.
 */
export function referenceAnswer(evidence: Record<string, unknown>, now: number): Record<string, unknown> {
  const int = (v: unknown, fallback: bigint) =>
    typeof v === "number" && Number.isSafeInteger(v) ? BigInt(v < 0 ? -v : v) : fallback;
  const band = int(evidence.bandBps, 300n) || 1n;
  const change = int(evidence.changeBps, 0n);
  const deviation = int(evidence.deviationBps, 0n);
  const cap = int(evidence.slippageCapBps, 0n);
  const windowSec = Number(int(evidence.windowSec, 600n));
  const gap = (change > deviation ? change : deviation) + cap;
  // In hundredths, rounded up: the worker applies bandMultiplier x 100 (worker.ts).
  const hundredths = ((band + gap) * 100n + band - 1n) / band;
  if (hundredths > MAX_MULTIPLIER * 100n) return { instruction: "pause_trading", until: now + windowSec };
  return { instruction: "widen_band", bandMultiplier: Number(hundredths) / 100, until: now + windowSec };
}
