import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { NO_FEE } from "../ledger/commissions.ts";
import { applyEntry, balanceOf, createLedger, feesCollected, holdOf } from "../ledger/state.ts";
import { AGT, testFees, testPair, USD } from "../../../support/exchange/pair-and-fees.ts";
import type { LedgerState } from "../ledger/types.ts";
import { deposit } from "../ledger/wallet.ts";
import { FastBook } from "../matching/fast-book.ts";
import { cancelAllOrders, cancelOrder, placeOrder, type PairMarket, type PlaceOrderRequest } from "./pair-market.ts";

function setUp(): { ledger: LedgerState; market: PairMarket } {
  const ledger = createLedger();
  for (const [userId, currency, amount] of [
    ["alice", USD, 10_000_000n],
    ["bob", AGT, 50_000n],
  ] as const) {
    const entry = deposit(ledger, { depositId: userId, userId, currency, amount, fee: NO_FEE });
    assert.ok(entry.ok);
    applyEntry(ledger, entry.value);
  }
  return { ledger, market: { pair: testPair(), fees: testFees, book: new FastBook() } };
}

function order(
  input: Partial<PlaceOrderRequest> & Pick<PlaceOrderRequest, "orderId" | "userId" | "isBid" | "amount">,
): PlaceOrderRequest {
  return {
    type: "limit",
    timeInForce: "GTC",
    postOnly: false,
    selfTradePrevention: "cancel_resting",
    timestamp: 0,
    ...input,
  };
}

function place(ledger: LedgerState, market: PairMarket, request: PlaceOrderRequest) {
  const outcome = placeOrder(ledger, market, request);
  if (!outcome.ok) throw new Error(outcome.code);
  return outcome.value;
}

describe("placeOrder", () => {
  it("a taker bid that trades below its limit and rests keeps locked exactly its remainder's value", () => {
    const { ledger, market } = setUp();
    place(ledger, market, order({ orderId: "ask", userId: "bob", isBid: false, price: 240, amount: 100 }));
    const outcome = place(
      ledger,
      market,
      order({ orderId: "bid", userId: "alice", isBid: true, price: 250, amount: 200 }),
    );
    assert.deepEqual(
      outcome.entries.map((entry) => entry.kind),
      ["order-hold", "trade", "order-release"],
    );
    // Locked 5,000,000; paid 2,400,000 for 100 lots at 2.40; 100 lots rest at 2.50 = 2,500,000.
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 5_100_000n, locked: 2_500_000n });
    assert.equal(holdOf(ledger, "bid")?.amount, 2_500_000n);
    assert.deepEqual(balanceOf(ledger, "alice", "AGT"), { available: 9_980n, locked: 0n });
  });

  it("a market buy spends at most its budget and gets the rest back", () => {
    const { ledger, market } = setUp();
    place(ledger, market, order({ orderId: "ask", userId: "bob", isBid: false, price: 240, amount: 100 }));
    const outcome = place(
      ledger,
      market,
      order({
        orderId: "m",
        userId: "alice",
        isBid: true,
        type: "market",
        timeInForce: "IOC",
        amount: 100,
        quoteBudget: 1_000_000n,
      }),
    );
    // 1,000,000 units buy 41 lots at 240 ticks (984,000 units); 16,000 come back.
    const trade = outcome.events.find((event) => event.type === "trade");
    assert.ok(trade?.type === "trade" && trade.amount === 41);
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 9_016_000n, locked: 0n });
  });

  it("releases the hold of an order the book rejects", () => {
    const { ledger, market } = setUp();
    const outcome = place(
      ledger,
      market,
      order({ orderId: "fok", userId: "alice", isBid: true, price: 250, amount: 1, timeInForce: "FOK" }),
    );
    assert.deepEqual(outcome.events, [{ type: "rejected", orderId: "fok", code: "FOK_NOT_FILLABLE" }]);
    assert.deepEqual(
      outcome.entries.map((entry) => entry.kind),
      ["order-hold", "order-release"],
    );
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 10_000_000n, locked: 0n });
  });

  it("rejects before the book for funds and bad orders, touching nothing", () => {
    const { ledger, market } = setUp();
    const poor = placeOrder(
      ledger,
      market,
      order({ orderId: "x", userId: "alice", isBid: true, price: 10_000, amount: 100 }),
    );
    assert.ok(!poor.ok && poor.code === "INSUFFICIENT_FUNDS");
    const bad = placeOrder(
      ledger,
      market,
      order({
        orderId: "y",
        userId: "alice",
        isBid: true,
        type: "market",
        amount: 1,
        timeInForce: "GTC",
        quoteBudget: 100n,
      }),
    );
    assert.ok(!bad.ok && bad.code === "INVALID_TIME_IN_FORCE");
    assert.deepEqual(market.book.restingOrders(), []);
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 10_000_000n, locked: 0n });
  });

  it("a resting maker's fills are charged the maker rate", () => {
    const { ledger, market } = setUp();
    place(ledger, market, order({ orderId: "bid", userId: "alice", isBid: true, price: 250, amount: 100 }));
    place(
      ledger,
      market,
      order({ orderId: "ask", userId: "bob", isBid: false, price: 250, amount: 100, timeInForce: "IOC" }),
    );
    // Alice, maker, receives 10,000 AGT units less 0.1% (10); Bob, taker, 2,500,000 USD less 0.25%.
    assert.deepEqual(balanceOf(ledger, "alice", "AGT"), { available: 9_990n, locked: 0n });
    assert.deepEqual(balanceOf(ledger, "bob", "USD"), { available: 2_493_750n, locked: 0n });
    assert.equal(feesCollected(ledger, "USD"), 6_250n);
  });
});

describe("cancelOrder and cancelAllOrders", () => {
  it("release the holds of the user's own orders only", () => {
    const { ledger, market } = setUp();
    place(ledger, market, order({ orderId: "b1", userId: "alice", isBid: true, price: 100, amount: 100 }));
    place(ledger, market, order({ orderId: "b2", userId: "alice", isBid: true, price: 110, amount: 100 }));
    const foreign = cancelOrder(ledger, market, "bob", "b1");
    assert.deepEqual(foreign.events, [{ type: "rejected", orderId: "b1", code: "UNKNOWN_ORDER" }]);
    assert.equal(balanceOf(ledger, "alice", "USD").locked, 2_100_000n);
    cancelOrder(ledger, market, "alice", "b1");
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 8_900_000n, locked: 1_100_000n });
    const all = cancelAllOrders(ledger, market, "alice");
    assert.deepEqual(
      all.entries.map((entry) => entry.kind),
      ["order-release"],
    );
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 10_000_000n, locked: 0n });
  });
});
