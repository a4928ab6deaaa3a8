import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applySwap, impactBps, type PoolReserves, PRICE_SCALE, quote, spotPrice } from "../market/pool-math.ts";
import { netBatch } from "./batch.ts";
import type { Directive } from "./directives.ts";
import type { ActionView, MevProtection, TokenView, WorkerStatus, WorkerView } from "./types.ts";
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
    prices: prices.map((price, i) => ({ time: now - (prices.length - i) * 10, price })),
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
      token: tokenAt(pool, [reference, reference], now),
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
    const token = tokenAt(pool, [reference, reference], now);
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
    const token = tokenAt(pool, [reference, reference], now);
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
    const token = tokenAt(pool, [reference, reference], now);
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
