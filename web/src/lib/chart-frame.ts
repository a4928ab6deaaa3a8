/**
 * Which candles a chart shows. Left alone, lightweight-charts draws every series at a fixed 6 px
 * per bar ending at the right edge: a young pair's few candles sit squeezed against the price
 * scale with the rest of the chart empty. A chart is framed instead, in logical bar indices.
 */

/** Below this many candles, each gets the width it would have if this many filled the chart. */
export const MIN_SLOTS = 40;

export type Frame = { kind: "range"; from: number; to: number } | { kind: "fit" };

/**
 * Few candles start at the left at a readable width, and the chart fills to the right as they
 * come (as a newly listed market's does); enough of them fit the chart's width whole. Two empty
 * slots before the first keep it clear of the attribution logo in the bottom-left corner.
 */
export function chartFrame(count: number): Frame {
  return count < MIN_SLOTS ? { kind: "range", from: -2, to: MIN_SLOTS - 2 } : { kind: "fit" };
}

/** The candles a chart was last framed for: how many, and the first one's time. */
export interface Framed {
  count: number;
  first: number;
}

/**
 * Whether new data frames the chart again: a new series (the first candle differs, as after an
 * interval change) always does; a new candle only while they are few, since the left-anchored
 * range is by index and would slide. Once the chart is full, a person's scroll and zoom are kept.
 */
export function reframes(last: Framed | null, next: Framed): boolean {
  if (next.count === 0) return false;
  if (last === null || last.first !== next.first) return true;
  return next.count !== last.count && last.count < MIN_SLOTS;
}
