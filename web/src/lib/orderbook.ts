import { addDecimal, compareDecimal, fractionDigits, fromScaled, isZeroDecimal, toScaled } from "./decimal.ts";

/**
 * A local order book kept from the exchange's `/ws` `<PAIR>@depth` diffs and its `GET /api/depth`
 * snapshot, as the README's recipe says: buffer diffs, take a snapshot, drop buffered diffs with
 * `u <= lastUpdateId`, the first applied one must have `U <= lastUpdateId + 1 <= u`, and then
 * each diff's `U` must be the previous `u` + 1. Anything else is a gap: the caller starts over
 * from a new snapshot. Prices and amounts stay decimal strings.
 */

export type Level = readonly [price: string, amount: string];

export interface DepthDiff {
  U: number;
  u: number;
  b: Level[];
  a: Level[];
}

export interface DepthSnapshot {
  lastUpdateId: number;
  bids: Level[];
  asks: Level[];
}

export type BookState = "waiting_snapshot" | "synced";

/** What `applyDiff` did: applied, buffered (no snapshot yet), stale (already in the snapshot) or gap. */
export type DiffResult = "applied" | "buffered" | "stale" | "gap";

export class LocalBook {
  private bids = new Map<string, string>();
  private asks = new Map<string, string>();
  private buffer: DepthDiff[] = [];
  private lastUpdateId = -1;
  state: BookState = "waiting_snapshot";

  /** Forgets everything: after a gap or reconnect, before the next snapshot. */
  reset(): void {
    this.bids.clear();
    this.asks.clear();
    this.buffer = [];
    this.lastUpdateId = -1;
    this.state = "waiting_snapshot";
  }

  /** Applies a snapshot and the buffered diffs after it; "gap" when they do not join it. */
  applySnapshot(snapshot: DepthSnapshot): "synced" | "gap" {
    this.bids = new Map(snapshot.bids.map(([p, q]) => [canonical(p), q]));
    this.asks = new Map(snapshot.asks.map(([p, q]) => [canonical(p), q]));
    this.lastUpdateId = snapshot.lastUpdateId;
    this.state = "synced";
    const buffered = this.buffer;
    this.buffer = [];
    for (const diff of buffered) {
      if (this.applyDiff(diff) === "gap") return "gap";
    }
    return "synced";
  }

  applyDiff(diff: DepthDiff): DiffResult {
    if (this.state === "waiting_snapshot") {
      this.buffer.push(diff);
      return "buffered";
    }
    if (diff.u <= this.lastUpdateId) return "stale";
    if (diff.U > this.lastUpdateId + 1) {
      this.state = "waiting_snapshot";
      return "gap";
    }
    for (const [price, amount] of diff.b) set(this.bids, price, amount);
    for (const [price, amount] of diff.a) set(this.asks, price, amount);
    this.lastUpdateId = diff.u;
    return "applied";
  }

  get updateId(): number {
    return this.lastUpdateId;
  }

  /** Best first: bids by price descending, asks ascending. */
  levels(side: "bids" | "asks"): Level[] {
    const map = side === "bids" ? this.bids : this.asks;
    const sorted = [...map.entries()].sort(([a], [b]) => compareDecimal(a, b));
    return side === "bids" ? sorted.reverse() : sorted;
  }
}

function canonical(price: string): string {
  return fromScaled(toScaled(price, fractionDigits(price)), fractionDigits(price));
}

function set(map: Map<string, string>, price: string, amount: string): void {
  const key = canonical(price);
  if (isZeroDecimal(amount)) map.delete(key);
  else map.set(key, amount);
}

/**
 * Levels grouped into buckets of `step` (a decimal string such as "0.5" or "10"): bids round down
 * to their bucket, asks up, so a grouped level never shows a better price than its orders have.
 * Amounts summed exactly; best first, at most `limit` levels.
 */
export function groupLevels(levels: Level[], step: string, side: "bids" | "asks", limit = 20): Level[] {
  const scale = Math.max(fractionDigits(step), ...levels.map(([p]) => fractionDigits(p)));
  const stepScaled = toScaled(step, scale);
  if (stepScaled <= 0n) throw new Error("step must be above zero");
  const buckets = new Map<bigint, string>();
  for (const [price, amount] of levels) {
    const p = toScaled(price, scale);
    let bucket = (p / stepScaled) * stepScaled;
    if (side === "asks" && bucket !== p) bucket += stepScaled;
    buckets.set(bucket, addDecimal(buckets.get(bucket) ?? "0", amount));
  }
  const sorted = [...buckets.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (side === "bids") sorted.reverse();
  return sorted.slice(0, limit).map(([bucket, amount]) => [fromScaled(bucket, scale), amount] as const);
}
