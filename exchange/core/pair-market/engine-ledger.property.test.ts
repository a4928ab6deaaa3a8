import assert from "node:assert/strict";
import { describe, it } from "vitest";
import fc from "fast-check";
import type { FeeRule } from "../ledger/commissions.ts";
import { balanceOf, createLedger, feesCollected } from "../ledger/state.ts";
import { AGT, rate, testFees, testPair, USD } from "../../../support/exchange/pair-and-fees.ts";
import type { LedgerState } from "../ledger/types.ts";
import { applyEntry } from "../ledger/state.ts";
import { deposit, withdraw } from "../ledger/wallet.ts";
import { FastBook } from "../matching/fast-book.ts";
import { ModelBook } from "../../../support/exchange/model-book.ts";
import type { BookEvent, OrderBook } from "../matching/types.ts";
import { baseUnitsOfLots, quoteUnitsOf } from "../money/pair.ts";
import { cancelAllOrders, cancelOrder, placeOrder, type Outcome, type PairMarket } from "./pair-market.ts";

// Random command streams over a few users drive the fast book (with the ledger) and
// the model book; after every step both must have emitted the same events and
// hold the same orders, and the money must add up. Replay a failure with FC_SEED
// (and FC_RUNS for a longer search).

const seed = Number(process.env.FC_SEED ?? 20260429);
const numRuns = Number(process.env.FC_RUNS ?? 300);
console.log(`engine-ledger property test: FC_SEED=${seed} FC_RUNS=${numRuns}`);

const USERS = ["u1", "u2", "u3", "u4"];
const CURRENCIES = [AGT, USD];
const pair = testPair();
const depositFee: FeeRule = { rate: rate(5n, 3), minimum: 0n };
const withdrawalFee: FeeRule = { rate: rate(1n, 2), minimum: 3n };

type Command =
  | { kind: "deposit"; user: string; currency: number; amount: bigint }
  | { kind: "withdraw"; user: string; currency: number; amount: bigint }
  | {
      kind: "place";
      user: string;
      reuseId: number | null;
      isBid: boolean;
      market: boolean;
      price: number;
      amount: number;
      timeInForce: "GTC" | "IOC" | "FOK";
      postOnly: boolean;
      selfTradePrevention: "cancel_resting" | "cancel_taker";
      quoteBudget: bigint | null;
    }
  | { kind: "cancel"; user: string; target: number }
  | { kind: "cancelAll"; user: string };

const user = fc.constantFrom(...USERS);
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("deposit" as const),
      user,
      currency: fc.nat(1),
      amount: fc.bigInt(1n, 20_000_000n),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("withdraw" as const),
      user,
      currency: fc.nat(1),
      amount: fc.bigInt(1n, 5_000_000n),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("place" as const),
      user,
      // One order in twenty reuses an earlier id: resting ones must be refused, finished ones may come back.
      reuseId: fc.tuple(fc.integer({ min: 0, max: 19 }), fc.nat()).map(([roll, index]) => (roll === 0 ? index : null)),
      isBid: fc.boolean(),
      market: fc.integer({ min: 0, max: 5 }).map((roll) => roll === 0),
      price: fc.integer({ min: 95, max: 105 }),
      amount: fc.integer({ min: 1, max: 60 }),
      timeInForce: fc.constantFrom("GTC" as const, "GTC" as const, "IOC" as const, "FOK" as const),
      postOnly: fc.integer({ min: 0, max: 4 }).map((roll) => roll === 0),
      selfTradePrevention: fc.constantFrom("cancel_resting" as const, "cancel_taker" as const),
      // Market buys usually carry a budget (1 in 8 without, which the ledger refuses).
      quoteBudget: fc.option(fc.bigInt(1n, 2_000_000n), { freq: 8 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("cancel" as const), user, target: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancelAll" as const), user }) },
);

interface TrackedOrder {
  amount: number;
  filled: number;
  isBid: boolean;
  limit: number | null;
}

/** What the streams exercised, so a generator that stops reaching the interesting cases fails loudly. */
const seen = new Map<string, number>();
const count = (what: string) => seen.set(what, (seen.get(what) ?? 0) + 1);

class Run {
  readonly ledger: LedgerState = createLedger();
  readonly market: PairMarket = { pair, fees: testFees, book: new FastBook() };
  readonly reference: OrderBook = new ModelBook();
  private readonly issuedIds: string[] = [];
  private readonly orders = new Map<string, TrackedOrder>();
  private readonly deposits = new Map<string, bigint>();
  private readonly withdrawals = new Map<string, bigint>();
  private lastTradeSeq = 0;

  constructor() {
    // Everyone starts funded so most orders reach the book; random deposits and
    // withdrawals then move balances up and down from there.
    for (const userId of USERS) {
      this.deposit(userId, USD, 10_000_000n);
      this.deposit(userId, AGT, 50_000n);
    }
  }

  step(command: Command): void {
    switch (command.kind) {
      case "deposit":
        this.deposit(command.user, CURRENCIES[command.currency], command.amount);
        return;
      case "withdraw":
        this.withdraw(command.user, CURRENCIES[command.currency], command.amount);
        return;
      case "place":
        this.place(command);
        return;
      case "cancel": {
        const orderId =
          this.issuedIds.length > 0 ? this.issuedIds[command.target % this.issuedIds.length] : "never-issued";
        this.compare(cancelOrder(this.ledger, this.market, command.user, orderId));
        return;
      }
      case "cancelAll":
        this.compare(cancelAllOrders(this.ledger, this.market, command.user));
        return;
    }
  }

  private deposit(userId: string, currency: typeof AGT | typeof USD, amount: bigint): void {
    const before = balanceOf(this.ledger, userId, currency.code).available;
    const entry = deposit(this.ledger, {
      depositId: `d-${this.issuedIds.length}`,
      userId,
      currency,
      amount,
      fee: depositFee,
    });
    assert.ok(entry.ok);
    applyEntry(this.ledger, entry.value);
    assert.equal(
      balanceOf(this.ledger, userId, currency.code).available - before,
      amount - expectedFee(amount, depositFee),
    );
    this.deposits.set(currency.code, (this.deposits.get(currency.code) ?? 0n) + amount);
  }

  private withdraw(userId: string, currency: typeof AGT | typeof USD, amount: bigint): void {
    const available = balanceOf(this.ledger, userId, currency.code).available;
    const fee = expectedFee(amount, withdrawalFee);
    const result = withdraw(this.ledger, { withdrawalId: "w", userId, currency, amount, fee: withdrawalFee });
    if (available < amount) {
      assert.ok(!result.ok && result.code === "INSUFFICIENT_FUNDS");
      return;
    }
    if (fee >= amount) {
      assert.ok(!result.ok && result.code === "AMOUNT_BELOW_FEE");
      return;
    }
    assert.ok(result.ok);
    applyEntry(this.ledger, result.value);
    this.withdrawals.set(currency.code, (this.withdrawals.get(currency.code) ?? 0n) + amount - fee);
  }

  private place(command: Extract<Command, { kind: "place" }>): void {
    let orderId: string;
    if (command.reuseId !== null && this.issuedIds.length > 0) {
      orderId = this.issuedIds[command.reuseId % this.issuedIds.length];
    } else {
      orderId = `o${this.issuedIds.length}`;
      this.issuedIds.push(orderId);
    }
    const feesBefore = this.fees();
    const outcome = placeOrder(this.ledger, this.market, {
      orderId,
      userId: command.user,
      isBid: command.isBid,
      type: command.market ? "market" : "limit",
      price: command.market ? undefined : command.price,
      amount: command.amount,
      timeInForce: command.market && command.timeInForce === "GTC" ? "IOC" : command.timeInForce,
      postOnly: command.postOnly && !command.market && command.timeInForce === "GTC",
      selfTradePrevention: command.selfTradePrevention,
      quoteBudget: command.market && command.isBid && command.quoteBudget !== null ? command.quoteBudget : undefined,
      timestamp: this.issuedIds.length,
    });
    if (outcome.ok) this.compare(outcome.value, feesBefore);
    else count(`ledger rejected ${outcome.code}`);
  }

  /** The reference book gets exactly what the fast book got and must answer the same. */
  private compare(outcome: Outcome, feesBefore: bigint[] = this.fees()): void {
    if (outcome.command !== null) assert.deepEqual(this.reference.execute(outcome.command), outcome.events);
    const expectedFees = [...feesBefore];
    for (const event of outcome.events) {
      this.track(event);
      if (event.type !== "trade") continue;
      // Buyers receive base and sellers quote; each pays its role's rate on what it receives.
      const buyerRole = event.takerIsBid ? testFees.taker : testFees.maker;
      const sellerRole = event.takerIsBid ? testFees.maker : testFees.taker;
      expectedFees[0] += expectedFee(baseUnitsOfLots(event.amount, pair), buyerRole.base);
      expectedFees[1] += expectedFee(quoteUnitsOf(event.price, event.amount, pair), sellerRole.quote);
    }
    assert.deepEqual(this.fees(), expectedFees, "trade fees collected");
  }

  private fees(): bigint[] {
    return CURRENCIES.map((currency) => feesCollected(this.ledger, currency.code));
  }

  private track(event: BookEvent): void {
    count(
      event.type === "rejected"
        ? `book rejected ${event.code}`
        : event.type === "done"
          ? `done ${event.status} ${event.reason ?? ""}`.trim()
          : event.type === "cancelled"
            ? `cancelled ${event.reason}`
            : event.type,
    );
    switch (event.type) {
      case "accepted":
        this.orders.set(event.orderId, { amount: event.amount, filled: 0, isBid: event.isBid, limit: event.price });
        break;
      case "trade": {
        assert.equal(event.tradeSeq, this.lastTradeSeq + 1, "trade ids increase one by one per pair");
        this.lastTradeSeq = event.tradeSeq;
        const taker = this.orders.get(event.takerOrderId)!;
        if (taker.limit !== null)
          assert.ok(
            taker.isBid ? event.price <= taker.limit : event.price >= taker.limit,
            "a taker never trades past its limit",
          );
        for (const orderId of [event.makerOrderId, event.takerOrderId]) {
          const order = this.orders.get(orderId)!;
          order.filled += event.amount;
          assert.ok(order.filled <= order.amount, `order ${orderId} filled ${order.filled} of ${order.amount}`);
        }
        assert.equal(
          this.orders.get(event.makerOrderId)!.amount - this.orders.get(event.makerOrderId)!.filled,
          event.makerRemaining,
        );
        assert.equal(taker.amount - taker.filled, event.takerRemaining);
        break;
      }
      case "done": {
        const order = this.orders.get(event.orderId)!;
        assert.equal(event.filled, order.filled);
        assert.equal(event.filled + event.remaining, order.amount);
        break;
      }
      case "cancelled": {
        const order = this.orders.get(event.orderId)!;
        assert.equal(event.remaining, order.amount - order.filled);
        break;
      }
      case "rejected":
        break;
    }
  }

  checkInvariants(): void {
    const resting = this.market.book.restingOrders();
    assert.deepEqual(resting, this.reference.restingOrders(), "both books hold the same orders in the same priority");
    const [bid, ask] = [this.market.book.bestBid(), this.market.book.bestAsk()];
    if (bid !== null && ask !== null) assert.ok(bid < ask, `book crossed: bid ${bid} >= ask ${ask}`);

    // Every resting order holds exactly what its remainder needs, and nothing else holds anything.
    const restingIds = new Set(resting.map((order) => order.orderId));
    assert.deepEqual(new Set(this.ledger.holds.keys()), restingIds, "holds exist exactly for resting orders");
    const lockedByAccount = new Map<string, bigint>();
    for (const order of resting) {
      const tracked = this.orders.get(order.orderId)!;
      assert.equal(tracked.filled + order.remaining, tracked.amount);
      const hold = this.ledger.holds.get(order.orderId)!;
      const needed = order.isBid
        ? quoteUnitsOf(order.price, order.remaining, pair)
        : baseUnitsOfLots(order.remaining, pair);
      assert.equal(hold.amount, needed, `hold of ${order.orderId}`);
      const key = `${hold.userId}/${hold.currency}`;
      lockedByAccount.set(key, (lockedByAccount.get(key) ?? 0n) + hold.amount);
    }

    for (const currency of CURRENCIES) {
      let held = 0n;
      for (const userId of USERS) {
        const balance = balanceOf(this.ledger, userId, currency.code);
        assert.ok(balance.available >= 0n && balance.locked >= 0n, `negative balance of ${userId} in ${currency.code}`);
        assert.equal(
          balance.locked,
          lockedByAccount.get(`${userId}/${currency.code}`) ?? 0n,
          `locked ${currency.code} of ${userId}`,
        );
        held += balance.available + balance.locked;
      }
      const fees = feesCollected(this.ledger, currency.code);
      assert.ok(fees >= 0n);
      const net = (this.deposits.get(currency.code) ?? 0n) - (this.withdrawals.get(currency.code) ?? 0n);
      assert.equal(held + fees, net, `${currency.code}: available + locked + fees must equal deposits - withdrawals`);
    }
  }
}

/** The commission rule written out independently of feeFor: ceil(amount x rate), at least the minimum, at most the amount. */
function expectedFee(amount: bigint, rule: FeeRule): bigint {
  const scale = 10n ** BigInt(rule.rate.scale);
  const proportional = (amount * rule.rate.numerator + scale - 1n) / scale;
  const fee = proportional < rule.minimum ? rule.minimum : proportional;
  return fee > amount ? amount : fee;
}

describe("fast book + ledger against the model book", () => {
  it("agree on every event and keep every invariant over random command streams", () => {
    fc.assert(
      fc.property(fc.array(command, { minLength: 1, maxLength: 150, size: "max" }), (commands) => {
        const run = new Run();
        for (const next of commands) {
          run.step(next);
          run.checkInvariants();
        }
      }),
      { seed, numRuns },
    );
    console.log(
      [...seen]
        .sort()
        .map(([what, times]) => `  ${what}: ${times}`)
        .join("\n"),
    );
    for (const what of [
      "trade",
      "done resting",
      "done filled",
      "done cancelled UNFILLED",
      "done cancelled SELF_TRADE",
      "done cancelled BUDGET_EXHAUSTED",
      "cancelled USER_CANCEL",
      "cancelled SELF_TRADE",
      "book rejected FOK_NOT_FILLABLE",
      "book rejected POST_ONLY_WOULD_TAKE",
      "book rejected NO_LIQUIDITY",
      "ledger rejected INSUFFICIENT_FUNDS",
      "ledger rejected DUPLICATE_ORDER_ID",
    ]) {
      assert.ok((seen.get(what) ?? 0) > 0, `the command streams never produced "${what}"`);
    }
  });
});
