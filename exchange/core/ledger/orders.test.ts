import assert from "node:assert/strict";
import { describe, it } from "vitest";
import type { TradeEvent } from "../matching/types.ts";
import { NO_FEE } from "./commissions.ts";
import { holdForOrder, releaseHold, settleTrade } from "./orders.ts";
import { applyEntry, balanceOf, createLedger, feesCollected, holdOf } from "./state.ts";
import { AGT, testFees, testPair, USD } from "../../../support/exchange/pair-and-fees.ts";
import { deposit } from "./wallet.ts";
import type { LedgerState } from "./types.ts";

const pair = testPair();

function fund(ledger: LedgerState, userId: string, currency: typeof AGT | typeof USD, amount: bigint): void {
  const entry = deposit(ledger, { depositId: `${userId}-${currency.code}`, userId, currency, amount, fee: NO_FEE });
  assert.ok(entry.ok);
  applyEntry(ledger, entry.value);
}

function hold(ledger: LedgerState, order: Parameters<typeof holdForOrder>[2]): void {
  const entry = holdForOrder(ledger, pair, order);
  if (!entry.ok) throw new Error(entry.code);
  applyEntry(ledger, entry.value);
}

describe("holdForOrder", () => {
  it("locks price x amount of quote for a bid and the amount of base for an ask", () => {
    const ledger = createLedger();
    fund(ledger, "alice", USD, 10_000_000n);
    fund(ledger, "bob", AGT, 50_000n);
    // 1.00 AGT (100 lots) at 2.50 USD (250 ticks) = 2.500000 USD.
    hold(ledger, { orderId: "bid", userId: "alice", isBid: true, type: "limit", price: 250, amount: 100 });
    hold(ledger, { orderId: "ask", userId: "bob", isBid: false, type: "limit", price: 240, amount: 100 });
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 7_500_000n, locked: 2_500_000n });
    assert.deepEqual(balanceOf(ledger, "bob", "AGT"), { available: 40_000n, locked: 10_000n });
    assert.deepEqual(holdOf(ledger, "bid"), { orderId: "bid", userId: "alice", currency: "USD", amount: 2_500_000n });
  });

  it("locks a market buy's budget and refuses a market buy without one", () => {
    const ledger = createLedger();
    fund(ledger, "alice", USD, 10_000_000n);
    hold(ledger, { orderId: "m", userId: "alice", isBid: true, type: "market", amount: 100, quoteBudget: 1_000_000n });
    assert.equal(balanceOf(ledger, "alice", "USD").locked, 1_000_000n);
    const noBudget = holdForOrder(ledger, pair, {
      orderId: "m2",
      userId: "alice",
      isBid: true,
      type: "market",
      amount: 100,
    });
    assert.ok(!noBudget.ok && noBudget.code === "QUOTE_BUDGET_REQUIRED");
  });

  it("refuses insufficient funds, a reused order id, a bad order and an order below the minimum", () => {
    const ledger = createLedger();
    fund(ledger, "alice", USD, 2_499_999n);
    const short = holdForOrder(ledger, pair, {
      orderId: "b",
      userId: "alice",
      isBid: true,
      type: "limit",
      price: 250,
      amount: 100,
    });
    assert.ok(!short.ok && short.code === "INSUFFICIENT_FUNDS");
    hold(ledger, { orderId: "b", userId: "alice", isBid: true, type: "limit", price: 1, amount: 1 });
    const reused = holdForOrder(ledger, pair, {
      orderId: "b",
      userId: "alice",
      isBid: true,
      type: "limit",
      price: 1,
      amount: 1,
    });
    assert.ok(!reused.ok && reused.code === "DUPLICATE_ORDER_ID");
    const bad = holdForOrder(ledger, pair, {
      orderId: "c",
      userId: "alice",
      isBid: true,
      type: "limit",
      price: 1.5,
      amount: 1,
    });
    assert.ok(!bad.ok && bad.code === "INVALID_ORDER");
    const withMinimum = testPair("1");
    const small = holdForOrder(ledger, withMinimum, {
      orderId: "d",
      userId: "alice",
      isBid: true,
      type: "limit",
      price: 250,
      amount: 10,
    });
    assert.ok(!small.ok && small.code === "BELOW_MIN_QUOTE_AMOUNT");
  });
});

describe("releaseHold", () => {
  it("returns what exceeds keep, and nothing when there is nothing to return", () => {
    const ledger = createLedger();
    fund(ledger, "alice", USD, 10_000_000n);
    hold(ledger, { orderId: "bid", userId: "alice", isBid: true, type: "limit", price: 250, amount: 100 });
    const partial = releaseHold(ledger, "bid", 2_000_000n);
    assert.ok(partial !== null);
    applyEntry(ledger, partial);
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 8_000_000n, locked: 2_000_000n });
    assert.equal(releaseHold(ledger, "bid", 2_000_000n), null);
    assert.equal(releaseHold(ledger, "unknown"), null);
  });
});

describe("settleTrade", () => {
  it("moves both legs from the holds and charges each side in the currency it receives", () => {
    const ledger = createLedger();
    fund(ledger, "alice", USD, 10_000_000n);
    fund(ledger, "bob", AGT, 50_000n);
    hold(ledger, { orderId: "ask", userId: "bob", isBid: false, type: "limit", price: 240, amount: 100 });
    hold(ledger, { orderId: "bid", userId: "alice", isBid: true, type: "limit", price: 250, amount: 100 });
    const trade: TradeEvent = {
      type: "trade",
      tradeSeq: 7,
      makerOrderId: "ask",
      makerUserId: "bob",
      takerOrderId: "bid",
      takerUserId: "alice",
      takerIsBid: true,
      price: 240,
      amount: 100,
      makerRemaining: 0,
      takerRemaining: 0,
      timestamp: 0,
    };
    const entry = settleTrade(pair, testFees, trade);
    applyEntry(ledger, entry);
    // 10,000 AGT units for 2,400,000 USD units. Alice (taker) pays 0.2% of her AGT = 20;
    // Bob (maker) pays 0.15% of his USD = 3,600. Alice's 100,000 of price improvement stays
    // locked until the order is done.
    assert.deepEqual(balanceOf(ledger, "alice", "AGT"), { available: 9_980n, locked: 0n });
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 7_500_000n, locked: 100_000n });
    assert.deepEqual(balanceOf(ledger, "bob", "USD"), { available: 2_396_400n, locked: 0n });
    assert.deepEqual(balanceOf(ledger, "bob", "AGT"), { available: 40_000n, locked: 0n });
    assert.equal(feesCollected(ledger, "AGT"), 20n);
    assert.equal(feesCollected(ledger, "USD"), 3_600n);
    assert.equal(holdOf(ledger, "ask"), undefined);
  });

  it("applies the minimum fee to a small fill", () => {
    const trade: TradeEvent = {
      type: "trade",
      tradeSeq: 1,
      makerOrderId: "bid",
      makerUserId: "alice",
      takerOrderId: "ask",
      takerUserId: "bob",
      takerIsBid: false,
      price: 100,
      amount: 1,
      makerRemaining: 0,
      takerRemaining: 0,
      timestamp: 0,
    };
    // Alice, the maker, buys 100 AGT units: 0.1% is 1 unit (rounded up), the minimum is 5.
    const fee = settleTrade(pair, testFees, trade).postings.find(
      (posting) => posting.account.kind === "fees" && posting.currency === "AGT",
    );
    assert.equal(fee?.delta, 5n);
  });
});
