import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { parseUnits } from "../core/money/index.ts";
import {
  DEFAULT_LADDER,
  DEFAULT_MARKETS,
  DEFAULT_PAIR_SETTINGS,
  buildLadder,
  ladderOrders,
  lotsFor,
  nextMid,
  pairsPerTick,
  planMarket,
  takerOrder,
  type MarketPlan,
  type PairSettings,
} from "./ladder.ts";
import { createRandom } from "./random.ts";

const settings = (code: string): PairSettings => DEFAULT_PAIR_SETTINGS.find((pair) => pair.code === code)!;

function plan(code: string): MarketPlan {
  const planned = planMarket(settings(code), DEFAULT_MARKETS[code]);
  assert.ok(planned.ok, planned.ok ? "" : planned.message);
  return planned.value;
}

/** Parses decimal text with exactly the pair's digits (no rounding): the server's rule. */
function exact(text: string, digits: number): bigint {
  const parsed = parseUnits(text, digits, "exact");
  assert.ok(parsed.ok, `${text} does not fit ${digits} digits`);
  return parsed.value;
}

describe("planMarket", () => {
  it("turns decimal texts into ticks and tick-lots", () => {
    const eth = plan("ETH_USDT");
    assert.equal(eth.startMid, 300_000n); // 3000.00
    assert.equal(eth.minMid, 150_000n);
    assert.equal(eth.maxMid, 600_000n);
    assert.equal(eth.minValue, 1_000_000n); // 1 USDT at 2 + 4 digits
    assert.equal(eth.levelValue, 150_000_000n);
    const gamma = plan("GAMMA_ETH");
    assert.equal(gamma.startMid, 20_000n); // 0.00020000
    assert.equal(gamma.minValue, 5_000_000n); // 0.0005 ETH at 8 + 2 digits
  });

  it("rounds minQuoteAmount up and accepts none", () => {
    const odd = planMarket(
      { code: "X_Y", digitsPrice: 2, digitsAmount: 0, minQuoteAmount: "0.001" },
      { startMid: "10", levelQuote: "5", takerQuote: "1" },
    );
    assert.ok(odd.ok);
    assert.equal(odd.value.minValue, 1n);
    const none = planMarket(
      { code: "X_Y", digitsPrice: 2, digitsAmount: 0, minQuoteAmount: null },
      { startMid: "10", levelQuote: "5", takerQuote: "1" },
    );
    assert.ok(none.ok);
    assert.equal(none.value.minValue, 0n);
  });

  it("refuses a start price off the tick grid, too coarse or not positive", () => {
    for (const startMid of ["3000.001", "0", "-1", "abc", "0.5"]) {
      const result = planMarket(
        { code: "X_Y", digitsPrice: 2, digitsAmount: 0, minQuoteAmount: null },
        { startMid, levelQuote: "5", takerQuote: "1" },
      );
      assert.equal(result.ok, false, startMid);
    }
  });
});

describe("nextMid", () => {
  it("stays within the bounds and moves at most maxStepBps per step", () => {
    const eth = plan("ETH_USDT");
    const random = createRandom("walk");
    let mid = eth.startMid;
    for (let i = 0; i < 20_000; i++) {
      const next = nextMid(eth, mid, random, 15);
      const delta = next > mid ? next - mid : mid - next;
      assert.ok(next >= eth.minMid && next <= eth.maxMid, `${next} out of bounds`);
      assert.ok(delta <= (mid * 15n) / 10_000n || delta <= 1n || next === eth.minMid || next === eth.maxMid);
      mid = next;
    }
  });

  it("reflects at the edges", () => {
    const bounds = { minMid: 100n, maxMid: 200n };
    const down = () => 0; // the largest step down
    const up = () => 0.999999; // the largest step up
    assert.equal(nextMid(bounds, 100n, down, 1000), 110n);
    assert.equal(nextMid(bounds, 200n, up, 1000), 180n);
  });

  it("is the same walk for the same seed", () => {
    const eth = plan("ETH_USDT");
    const walk = (seed: string) => {
      const random = createRandom(seed);
      let mid = eth.startMid;
      const path: bigint[] = [];
      for (let i = 0; i < 50; i++) {
        mid = nextMid(eth, mid, random);
        path.push(mid);
      }
      return path;
    };
    assert.deepEqual(walk("a"), walk("a"));
    assert.notDeepEqual(walk("a"), walk("b"));
  });
});

describe("buildLadder", () => {
  for (const code of Object.keys(DEFAULT_MARKETS)) {
    it(`${code}: exact texts on the pair's grid, ordered, above the minimum, never crossing`, () => {
      const market = plan(code);
      const random = createRandom(code);
      let mid = market.startMid;
      for (let round = 0; round < 200; round++) {
        mid = nextMid(market, mid, random);
        const ladder = buildLadder(market, mid);
        assert.equal(ladder.bids.length, DEFAULT_LADDER.levels);
        assert.equal(ladder.asks.length, DEFAULT_LADDER.levels);
        assert.ok(ladder.bids[0].priceTicks < mid && mid < ladder.asks[0].priceTicks);
        for (const side of [ladder.bids, ladder.asks]) {
          side.forEach((q, i) => {
            assert.equal(exact(q.price, market.digitsPrice), q.priceTicks);
            assert.equal(exact(q.amount, market.digitsAmount), q.lots);
            assert.ok(q.lots > 0n);
            assert.ok(q.priceTicks * q.lots >= market.minValue, `${q.price} x ${q.amount} under the minimum`);
            assert.ok(q.priceTicks * q.lots >= market.levelValue * BigInt(i + 1));
            if (i > 0) {
              const previous = side[i - 1];
              assert.ok(q.isBid ? q.priceTicks < previous.priceTicks : q.priceTicks > previous.priceTicks);
            }
          });
        }
      }
    });
  }

  it("ETH_USDT at 3000: 20 bps spread, 10 bps steps", () => {
    const ladder = buildLadder(plan("ETH_USDT"), 300_000n);
    assert.deepEqual(
      ladder.bids.map((q) => q.price),
      ["2997.00", "2994.00", "2991.00", "2988.00", "2985.00"],
    );
    assert.deepEqual(
      ladder.asks.map((q) => q.price),
      ["3003.00", "3006.00", "3009.00", "3012.00", "3015.00"],
    );
    // 150 USDT at 2997.00 -> ceil(0.05005...) = 0.0501 ETH
    assert.equal(ladder.bids[0].amount, "0.0501");
  });

  it("keeps at least one tick of half-spread on a coarse price", () => {
    const coarse: MarketPlan = {
      ...plan("ETH_USDT"),
      startMid: 100n,
      minMid: 50n,
      maxMid: 200n,
      minValue: 0n,
      levelValue: 1n,
    };
    const ladder = buildLadder(coarse, 100n, { levels: 2, spreadBps: 2, stepBps: 1 });
    assert.deepEqual(
      ladder.bids.map((q) => q.priceTicks),
      [99n, 98n],
    );
    assert.deepEqual(
      ladder.asks.map((q) => q.priceTicks),
      [101n, 102n],
    );
  });

  it("drops bids that would reach zero", () => {
    const coarse: MarketPlan = { ...plan("ETH_USDT"), minValue: 0n, levelValue: 1n };
    const ladder = buildLadder(coarse, 3n, { levels: 5, spreadBps: 0, stepBps: 0 });
    assert.deepEqual(
      ladder.bids.map((q) => q.priceTicks),
      [2n, 1n],
    );
    assert.equal(ladder.asks.length, 5);
  });

  it("turns into GTC limit bodies, bids first", () => {
    const ladder = buildLadder(plan("ALPHA_USDT"), 5000n);
    const orders = ladderOrders("ALPHA_USDT", ladder);
    assert.equal(orders.length, 10);
    assert.deepEqual(orders[0], {
      isBid: true,
      currencyPairCode: "ALPHA_USDT",
      amount: ladder.bids[0].amount,
      price: ladder.bids[0].price,
      type: "limit",
      timeInForce: "GTC",
    });
    assert.equal(orders[5].isBid, false);
  });
});

describe("lotsFor", () => {
  it("rounds up to reach the value and the pair's minimum, at least one lot", () => {
    const p = { minValue: 100n };
    assert.equal(lotsFor(p, 30n, 10n), 4n); // the minimum: ceil(100 / 30)
    assert.equal(lotsFor(p, 30n, 1000n), 34n);
    assert.equal(lotsFor({ minValue: 0n }, 1000n, 1n), 1n);
    assert.throws(() => lotsFor(p, 0n, 1n), RangeError);
  });
});

describe("takerOrder", () => {
  it("crosses the ladder with an IOC limit or a market order, above the pair's minimum", () => {
    for (const code of Object.keys(DEFAULT_MARKETS)) {
      const market = plan(code);
      const ladder = buildLadder(market, market.startMid);
      const random = createRandom(`taker-${code}`);
      const seen = new Set<string>();
      for (let i = 0; i < 400; i++) {
        const order = takerOrder(market, ladder, random)!;
        seen.add(`${order.type}-${order.isBid}`);
        assert.equal(order.currencyPairCode, code);
        assert.equal(order.timeInForce, "IOC");
        const lots = exact(order.amount, market.digitsAmount);
        assert.ok(lots > 0n);
        if (order.type === "limit") {
          const price = exact(order.price!, market.digitsPrice);
          if (order.isBid) assert.equal(price, ladder.asks[1].priceTicks);
          else assert.equal(price, ladder.bids[1].priceTicks);
          assert.ok(price * lots >= market.minValue);
        } else {
          assert.equal(order.price, undefined);
          // A market buy is budgeted from the book: at the best ask it is worth the minimum.
          if (order.isBid) assert.ok(ladder.asks[0].priceTicks * lots >= market.minValue);
        }
      }
      assert.deepEqual([...seen].sort(), ["limit-false", "limit-true", "market-false", "market-true"]);
    }
  });

  it("gives nothing to cross on an empty side", () => {
    const market = plan("ETH_USDT");
    const random = () => 0.1; // a buy
    assert.equal(takerOrder(market, { bids: [], asks: [] }, random), null);
  });
});

describe("pairsPerTick", () => {
  it("fits the re-quotes into the key's rate limit", () => {
    // 1.5 s ticks: 40 a minute; 11 requests per pair -> 440 per pair and minute.
    assert.equal(pairsPerTick({ pairs: 4, quotesPerPair: 10, intervalMs: 1500, requestsPerMinute: 1020 }), 2);
    assert.equal(pairsPerTick({ pairs: 4, quotesPerPair: 10, intervalMs: 1500, requestsPerMinute: 10_000 }), 4);
    assert.equal(pairsPerTick({ pairs: 4, quotesPerPair: 10, intervalMs: 100, requestsPerMinute: 60 }), 1);
    assert.equal(pairsPerTick({ pairs: 0, quotesPerPair: 10, intervalMs: 1500, requestsPerMinute: 1000 }), 0);
  });
});
