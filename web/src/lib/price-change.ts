import type { Candle } from "./candles.ts";
import { percentChange } from "./format.ts";

export const CHANGE_WINDOWS = [
  ["5m", 300],
  ["1h", 3600],
  ["6h", 21_600],
  ["24h", 86_400],
] as const;

export type ChangeWindow = (typeof CHANGE_WINDOWS)[number][0];

/**
 * Price change over 5m/1h/6h/24h from minute candles (oldest first): the last trade's price
 * against the price at the window's start, which is the close of the last candle before it, or,
 * when nothing traded before the window, the open of its first trade. Null without trades.
 */
export function priceChanges(candles: readonly Candle[], now: number): Record<ChangeWindow, string | null> {
  const result = {} as Record<ChangeWindow, string | null>;
  const last = candles.at(-1);
  for (const [name, seconds] of CHANGE_WINDOWS) {
    if (!last) {
      result[name] = null;
      continue;
    }
    const start = now - seconds;
    const before = candles.filter((c) => c.time + 60 <= start).at(-1);
    const reference = before ? before.close : candles.find((c) => c.time + 60 > start)?.open;
    result[name] = reference === undefined ? null : percentChange(reference, last.close);
  }
  return result;
}
