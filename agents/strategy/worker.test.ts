import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applySwap, impactBps, type PoolReserves, PRICE_SCALE, quote, spotPrice } from "../pool/pool-math.ts";
import { netBatch } from "./batch.ts";
import type { Directive } from "./directives.ts";
import type { ActionView, MevProtection, PricePoint, TokenView, WorkerStatus, WorkerView } from "./types.ts";
import { DEFAULT_WORKER_PARAMS, decideWorker } from "./worker.ts";

const SEED = Number(process.env.WORKER_SEED ?? 424242);
console.log(`worker property test: WORKER_SEED=${SEED}`);

const ZERO = "0x0000000000000000000000000000000000000000" as const;
const pool: PoolReserves = {
  reserveToken: 1_000_000_000n * 10n ** 18n,
  reservePair: 5_000n * 10n ** 6n,
  virtualPair: 10_000n * 10n ** 6n,
  feePips: 3_000n,
};

function tokenAt(reserves: PoolReserves, prices: bigint[], now: number): TokenView {
  return {
    nftId: 1n,
    workerId: 1n,
    symbol: "ALPHA",
    token: ZERO,
    pool: ZERO,
    pairAsset: ZERO,
    totalSupply: 10n ** 27n,
    reserves,
    spawnedAt: 0,
    spawnTx: "0x00",
    prices: prices.map((price, i) => ({ block: BigInt(i + 1), time: now - (prices.length - i) * 10, price })),
    swaps: [],
  };
}

const worker = (
  status: WorkerStatus = "active",
  cap = 100,
  subs: string[] = [],
  mev: MevProtection = "off",
): WorkerView => ({
  id: 1n,
  agentNftId: 1n,
  operator: ZERO,
  status,
  config: { slippageCapBps: cap, mevProtection: mev, signalSubscriptions: subs },
});

const rich = { token: 10_000_000n * 10n ** 18n, pair: 5_000n * 10n ** 6n };
const now = 10_000;
const price = spotPrice(pool);

const flag = (signal: string): ActionView => ({
  entryId: 9n,
  targetNftId: 1n,
  tier: "scout",
  sourceAgentId: 7n,
  operator: ZERO,
  actionType: "flag",
  payload: { signal },
  reasonCode: "X",
  isOverride: false,
  time: now - 5,
  txHash: "0x01",
  block: 1n,
});

describe("decideWorker", () => {
  it("sells back toward the band when the pool is above it, within the cap", () => {
    const reference = (price * 90n) / 100n; // the pool is 10% above its average
    const [trade] = decideWorker({
      now,
      token: tokenAt(pool, [reference, reference, reference], now),
      worker: worker(),
      inventory: rich,
      directives: [],
      flags: [],
    });
    expect(trade).toMatchObject({ kind: "trade", actionType: "trade", reasonCode: "PRICE_ABOVE_BAND", isBuy: false });
    const out = quote(pool, false, trade!.amountIn).amountOut;
    expect(out).toBeGreaterThanOrEqual(trade!.minAmountOut);
    expect(impactBps(pool, false, trade!.amountIn, out)).toBeLessThanOrEqual(100n);
  });

  it("buys when below the band, and on a subscribed price flag aims at the reference itself", () => {
    const reference = (price * 110n) / 100n;
    const token = tokenAt(pool, [reference, reference, reference], now);
    const plain = decideWorker({
      now,
      token,
      worker: worker("active", 5_000),
      inventory: rich,
      directives: [],
      flags: [],
    });
    const reverting = decideWorker({
      now,
      token,
      worker: worker("active", 5_000, ["price"]),
      inventory: rich,
      directives: [],
      flags: [flag("price")],
    });
    expect(plain[0]).toMatchObject({ isBuy: true, reasonCode: "PRICE_BELOW_BAND" });
    expect(reverting[0]).toMatchObject({ isBuy: true, reasonCode: "PRICE_SIGNAL_REVERT" });
    expect(reverting[0]!.amountIn).toBeGreaterThan(plain[0]!.amountIn);
  });

  it("ignores flags of signals it does not subscribe to", () => {
    const reference = (price * 110n) / 100n;
    const token = tokenAt(pool, [reference, reference, reference], now);
    const [trade] = decideWorker({
      now,
      token,
      worker: worker("active", 5_000, ["volume"]),
      inventory: rich,
      directives: [],
      flags: [flag("price")],
    });
    expect(trade!.reasonCode).toBe("PRICE_BELOW_BAND");
  });

  it("inside the band, rebalances an inventory of only pair asset toward half tokens", () => {
    const [trade] = decideWorker({
      now,
      token: tokenAt(pool, [price, price], now),
      worker: worker(),
      inventory: { token: 0n, pair: 100n * 10n ** 6n },
      directives: [],
      flags: [],
    });
    expect(trade).toMatchObject({ actionType: "rebalance", reasonCode: "INVENTORY_DRIFT", isBuy: true });
  });

  it("stays put inside the band with a balanced inventory", () => {
    const balanced = { token: (50n * 10n ** 6n * PRICE_SCALE) / price, pair: 50n * 10n ** 6n };
    expect(
      decideWorker({
        now,
        token: tokenAt(pool, [price, price], now),
        worker: worker(),
        inventory: balanced,
        directives: [],
        flags: [],
      }),
    ).toEqual([]);
  });

  it("obeys a pause directive and a wider band", () => {
    const reference = (price * 95n) / 100n; // 5% above: outside 3%, inside 6%
    const token = tokenAt(pool, [reference, reference, reference], now);
    const directive = (instruction: Directive["instruction"]): Directive => ({
      entryId: 1n,
      instruction,
      from: 0,
      block: 1n,
      until: now + 60,
      bandMultiplier: 2,
      targetInventoryBps: undefined,
    });
    const balanced = { token: (50n * 10n ** 6n * PRICE_SCALE) / price, pair: 50n * 10n ** 6n };
    expect(decideWorker({ now, token, worker: worker(), inventory: balanced, directives: [], flags: [] })).toHaveLength(
      1,
    );
    expect(
      decideWorker({
        now,
        token,
        worker: worker(),
        inventory: balanced,
        directives: [directive("pause_trading")],
        flags: [],
      }),
    ).toEqual([]);
    expect(
      decideWorker({
        now,
        token,
        worker: worker(),
        inventory: balanced,
        directives: [directive("widen_band")],
        flags: [],
      }),
    ).toEqual([]);
  });

  it("property: no trade exceeds its cap or its inventory, and idle or suspended workers never act", () => {
    const arbPool = fc.record({
      reserveToken: fc.bigInt({ min: 10n ** 20n, max: 10n ** 28n }),
      reservePair: fc.bigInt({ min: 0n, max: 10n ** 22n }),
      virtualPair: fc.bigInt({ min: 10n ** 6n, max: 10n ** 22n }),
      feePips: fc.bigInt({ min: 0n, max: 10_000n }),
    });
    // A market path: random swaps moving the pool, the prices the observer would record.
    const arbPath = fc.array(fc.record({ isBuy: fc.boolean(), shareBps: fc.integer({ min: 1, max: 2_000 }) }), {
      minLength: 1,
      maxLength: 12,
    });
    fc.assert(
      fc.property(
        arbPool,
        arbPath,
        fc.constantFrom<WorkerStatus>("active", "idle", "suspended"),
        fc.integer({ min: 1, max: 2_000 }),
        fc.subarray(["price", "volume", "whale", "spawn"]),
        fc.record({ token: fc.bigInt({ min: 0n, max: 10n ** 27n }), pair: fc.bigInt({ min: 0n, max: 10n ** 22n }) }),
        fc.option(fc.integer({ min: 1, max: 40_000 }), { nil: undefined }),
        (start, path, status, cap, subs, inventory, referenceBps) => {
          let p = start;
          const prices: bigint[] = [spotPrice(p)];
          for (const step of path) {
            const reserveIn = step.isBuy ? p.reservePair + p.virtualPair : p.reserveToken;
            const amountIn = (reserveIn * BigInt(step.shareBps)) / 10_000n;
            if (amountIn === 0n) continue;
            const out = quote(p, step.isBuy, amountIn).amountOut;
            if (out === 0n || out >= (step.isBuy ? p.reserveToken : p.reservePair)) continue;
            p = applySwap(p, step.isBuy, amountIn, out);
            prices.push(spotPrice(p));
          }
          const reference = referenceBps === undefined ? undefined : (spotPrice(p) * BigInt(referenceBps)) / 10_000n;
          const w = worker(status, cap, subs);
          const intents = decideWorker({
            now,
            token: tokenAt(p, prices, now),
            worker: w,
            inventory,
            directives: [],
            flags: subs.map(flag),
            reference,
            params: DEFAULT_WORKER_PARAMS,
          });
          if (status !== "active") expect(intents).toEqual([]);
          for (const t of intents) {
            expect(t.amountIn).toBeLessThanOrEqual(t.isBuy ? inventory.pair : inventory.token);
            const out = quote(p, t.isBuy, t.amountIn).amountOut;
            // The pool would execute it (output meets the guard) and its impact is within the cap.
            expect(out).toBeGreaterThanOrEqual(t.minAmountOut);
            expect(impactBps(p, t.isBuy, t.amountIn, out)).toBeLessThanOrEqual(BigInt(cap));
            // And the guard alone forbids anything beyond the cap.
            expect(impactBps(p, t.isBuy, t.amountIn, t.minAmountOut)).toBeLessThanOrEqual(BigInt(cap) + 1n);
          }
          // A batch of them, netted, obeys the same rules.
          const net = netBatch(intents, p, BigInt(cap), inventory);
          if (net) {
            const out = quote(p, net.isBuy, net.amountIn).amountOut;
            expect(out).toBeGreaterThanOrEqual(net.minAmountOut);
            expect(impactBps(p, net.isBuy, net.amountIn, out)).toBeLessThanOrEqual(BigInt(cap));
          }
        },
      ),
      { seed: SEED, numRuns: 400 },
    );
  });
});

describe("netBatch", () => {
  it("nets a buy against a larger sell into one sell", () => {
    const buy = {
      kind: "trade",
      targetNftId: 1n,
      actionType: "trade",
      reasonCode: "A",
      isBuy: true,
      amountIn: 10n * 10n ** 6n,
      minAmountOut: 1n,
      why: {},
    } as const;
    const sellTokens = (30n * 10n ** 6n * PRICE_SCALE) / price;
    const sell = { ...buy, isBuy: false, amountIn: sellTokens, reasonCode: "B" };
    const net = netBatch([buy, sell], pool, 500n, rich)!;
    expect(net.isBuy).toBe(false);
    expect(net.reasonCode).toBe("BATCH_AUCTION");
    // 30 sold less 10 bought: 20 (pair units) worth of tokens, within rounding.
    const expected = (20n * 10n ** 6n * PRICE_SCALE) / price;
    expect(net.amountIn - expected < 10n ** 6n && expected - net.amountIn < 10n ** 12n).toBe(true);
    expect(net.why.netted).toBe(2);
  });

  it("sends nothing when buys and sells cancel", () => {
    const buy = {
      kind: "trade",
      targetNftId: 1n,
      actionType: "trade",
      reasonCode: "A",
      isBuy: true,
      amountIn: 0n,
      minAmountOut: 1n,
      why: {},
    } as const;
    expect(netBatch([buy], pool, 500n, rich)).toBeUndefined();
  });
});

/** The reference before the fix: the plain average of every swap's price in the window (>= 2). */
function plainAverage(points: readonly PricePoint[], at: number, windowSec: number): bigint | undefined {
  const recent = points.filter((p) => p.time >= at - windowSec);
  if (recent.length < 2) return undefined;
  return recent.reduce((sum, p) => sum + p.price, 0n) / BigInt(recent.length);
}

/** A token whose observer saw `points` (oldest first). */
const tokenWith = (reserves: PoolReserves, points: PricePoint[]): TokenView => ({
  ...tokenAt(reserves, [], now),
  prices: points,
});

/** The pool at `price` for the last 40 minutes, one block every 30 s. */
const steadyHistory = (p: bigint, until = now): PricePoint[] => {
  const points: PricePoint[] = [];
  for (let t = until - 2_400, b = 1n; t < until; t += 30, b++) points.push({ block: b, time: t, price: p });
  return points;
};

const balanced = { token: (50n * 10n ** 6n * PRICE_SCALE) / price, pair: 50n * 10n ** 6n };

describe("decideWorker: a reference one block cannot move", () => {
  it("a push of 30%, 300 dust buys and a pull back in one block leave the reference where it was: no trade", () => {
    const points = steadyHistory(price);
    // The attacker's transaction: every swap's price, as an observer of each Sync would record them.
    const block = 1_000n;
    const pushed = (price * 130n) / 100n;
    points.push({ block, time: now - 20, price: pushed });
    for (let i = 0; i < 300; i++) points.push({ block, time: now - 20, price: pushed + BigInt(i) });
    points.push({ block, time: now - 20, price });
    const input = { now, worker: worker(), inventory: balanced, directives: [], flags: [] };
    expect(decideWorker({ ...input, token: tokenWith(pool, points) })).toEqual([]);
    // The plain average of those points (the reference before) sat 26% high: a buy every tick.
    const planted = plainAverage(points, now, 600)!;
    expect(planted > (price * 125n) / 100n).toBe(true);
    const [chasing] = decideWorker({ ...input, token: tokenWith(pool, points), reference: planted });
    expect(chasing).toMatchObject({ reasonCode: "PRICE_BELOW_BAND", isBuy: true });
  });

  it("trusts no reference over fewer than three blocks: only the inventory is kept", () => {
    const reference = (price * 90n) / 100n;
    const input = { now, worker: worker(), directives: [], flags: [] };
    const two = tokenAt(pool, [reference, reference], now);
    expect(decideWorker({ ...input, token: two, inventory: balanced })).toEqual([]);
    const [rebalance] = decideWorker({ ...input, token: two, inventory: { token: 0n, pair: 100n * 10n ** 6n } });
    expect(rebalance).toMatchObject({ actionType: "rebalance", why: { reference: "none" } });
    const [band] = decideWorker({
      ...input,
      token: tokenAt(pool, [reference, reference, reference], now),
      inventory: balanced,
    });
    expect(band).toMatchObject({ reasonCode: "PRICE_ABOVE_BAND", isBuy: false });
  });

  it("a buy toward a reference that a held push raised waits for a scout's flag and the queen's answer, whose wider band then holds it", () => {
    // 30% up for 100 s, pulled back 60 s ago: the average remembers it, 5% above the price.
    const points = steadyHistory(price, now - 160);
    points.push({ block: 500n, time: now - 160, price: (price * 130n) / 100n });
    points.push({ block: 501n, time: now - 60, price });
    const token = tokenWith(pool, points);
    const input = { now, token, worker: worker(), inventory: balanced, directives: [] as Directive[], flags: [] };
    expect(decideWorker(input)).toEqual([]);
    const flagged = {
      ...flag("reference"),
      entryId: 20n,
      time: now - 10,
      payload: { signal: "reference", evidence: { changeBps: 500 } },
    };
    const answer: ActionView = {
      ...flagged,
      entryId: 21n,
      tier: "queen",
      actionType: "directive",
      payload: { instruction: "widen_band", bandMultiplier: 3.34, until: now + 600, cause: "20" },
    };
    // Seen: the worker may trade toward it again, within the band in force.
    const [seen] = decideWorker({ ...input, flags: [flagged], answers: [answer] });
    expect(seen).toMatchObject({ reasonCode: "PRICE_BELOW_BAND", isBuy: true });
    // The queen's answer is a wider band, and within it there is no trade.
    const widened: Directive = {
      entryId: 21n,
      instruction: "widen_band",
      from: now - 5,
      block: 2_000n,
      until: now + 600,
      bandMultiplier: 3.34,
      targetInventoryBps: undefined,
    };
    expect(decideWorker({ ...input, flags: [flagged], answers: [answer], directives: [widened] })).toEqual([]);
  });

  it("a sell into a real rise is not held: the reference moved toward the price, not away from it", () => {
    // The price rose 10% over the last five minutes, in steps, and holds there.
    const points = steadyHistory(price, now - 300);
    const risen = (price * 110n) / 100n;
    for (let i = 1; i <= 10; i++)
      points.push({
        block: 1_000n + BigInt(i),
        time: now - 300 + 30 * (i - 1),
        price: price + ((risen - price) * BigInt(i)) / 10n,
      });
    const up = applySwap(pool, true, 2_300n * 10n ** 6n, quote(pool, true, 2_300n * 10n ** 6n).amountOut);
    const [trade] = decideWorker({
      now,
      token: tokenWith(up, points),
      worker: worker(),
      inventory: balanced,
      directives: [],
      flags: [],
    });
    expect(trade).toMatchObject({ reasonCode: "PRICE_ABOVE_BAND", isBuy: false });
    expect(Number(trade!.why.referenceMoveBps)).toBeGreaterThan(100);
  });

  it("property: in a sustained move (a block every few seconds, evenly spread) band keeping is what the plain average gave", () => {
    let bandTrades = 0;
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 130, maxLength: 300 }),
        fc.constantFrom(5, 10, 12, 15, 20, 30),
        fc.integer({ min: 25, max: 500 }),
        fc.subarray(["price", "volume"]),
        (up, steps, spacing, cap, subs) => {
          // A move in one direction, swap by swap, each in its own block `spacing` seconds apart.
          let p = pool;
          const points: PricePoint[] = [];
          steps.forEach((shareBps, i) => {
            const reserveIn = up ? p.reservePair + p.virtualPair : p.reserveToken;
            const amountIn = (reserveIn * BigInt(shareBps)) / 100_000n;
            const out = quote(p, up, amountIn).amountOut;
            if (amountIn > 0n && out > 0n) p = applySwap(p, up, amountIn, out);
            points.push({ block: BigInt(i + 1), time: now - (steps.length - i) * spacing, price: spotPrice(p) });
          });
          const input = {
            now,
            token: tokenWith(p, points),
            worker: worker("active", cap, subs),
            inventory: balanced,
            directives: [],
            flags: subs.map(flag),
          };
          const twapped = decideWorker(input);
          const before = decideWorker({ ...input, reference: plainAverage(points, now, 600) });
          const essence = (xs: ReturnType<typeof decideWorker>) =>
            xs.map((t) => [t.reasonCode, t.isBuy, t.amountIn, t.minAmountOut, t.why.reference]);
          expect(essence(twapped)).toEqual(essence(before));
          bandTrades += twapped.filter((t) => t.actionType === "trade").length;
        },
      ),
      { seed: SEED, numRuns: 200 },
    );
    // The moves were real: most runs traded the band.
    expect(bandTrades).toBeGreaterThan(100);
  });
});

describe("decideWorker: rebalancing", () => {
  it("a rebalance never takes the price past the band's edge, where the band trade would take it back (a loop paying its own impact)", () => {
    // Inside the band, 2.5% under the reference, holding only tokens: it sells, but not below the edge.
    const reference = (price * 1_000n) / 975n;
    const token = tokenAt(pool, [reference, reference, reference], now);
    const [sell] = decideWorker({
      now,
      token,
      worker: worker("active", 226),
      inventory: { token: 10n ** 26n, pair: 0n },
      directives: [],
      flags: [],
    });
    expect(sell).toMatchObject({ actionType: "rebalance", isBuy: false });
    const after = applySwap(pool, false, sell!.amountIn, quote(pool, false, sell!.amountIn).amountOut);
    const edge = (reference * 9_700n) / 10_000n;
    expect(spotPrice(after) >= (edge * 9_999n) / 10_000n).toBe(true);
    // So the next tick, with the same picture, has no band trade to answer it with.
    const [next] = decideWorker({
      now,
      token: { ...token, reserves: after },
      worker: worker("active", 226),
      inventory: { token: 10n ** 26n - sell!.amountIn, pair: 1n },
      directives: [],
      flags: [],
    });
    expect(next?.actionType ?? "none").not.toBe("trade");
  });
});
