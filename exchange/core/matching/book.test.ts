import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { doneStatus, implementations, lastEvent, place, trades } from "../../../support/exchange/order-books.ts";

for (const { name, create } of implementations) {
  describe(`${name}: limit orders and priority`, () => {
    it("rests a limit order that does not cross", () => {
      const book = create();
      const events = place(book, { orderId: "b1", isBid: true, price: 100, amount: 5 });
      assert.deepEqual(
        events.map((event) => event.type),
        ["accepted", "done"],
      );
      assert.deepEqual(lastEvent(events), {
        type: "done",
        orderId: "b1",
        userId: "alice",
        isBid: true,
        price: 100,
        filled: 0,
        remaining: 5,
        status: "resting",
        reason: null,
      });
      assert.equal(book.bestBid(), 100);
      assert.equal(book.bestAsk(), null);
    });

    it("fills the better price first, then the earlier order at one price", () => {
      const book = create();
      place(book, { orderId: "a-101-first", userId: "bob", isBid: false, price: 101, amount: 1 });
      place(book, { orderId: "a-101-second", userId: "carol", isBid: false, price: 101, amount: 1 });
      place(book, { orderId: "a-100-late", userId: "dave", isBid: false, price: 100, amount: 1 });
      const events = place(book, { orderId: "taker", isBid: true, price: 101, amount: 3 });
      assert.deepEqual(trades(events), [
        ["a-100-late", "taker", 100, 1],
        ["a-101-first", "taker", 101, 1],
        ["a-101-second", "taker", 101, 1],
      ]);
      assert.equal(doneStatus(events), "filled");
    });

    it("partially fills a maker and keeps its place at the head of the queue", () => {
      const book = create();
      place(book, { orderId: "ask1", userId: "bob", isBid: false, price: 100, amount: 10 });
      place(book, { orderId: "ask2", userId: "carol", isBid: false, price: 100, amount: 10 });
      const first = place(book, { orderId: "t1", isBid: true, price: 100, amount: 4 });
      const trade = first.find((event) => event.type === "trade");
      assert.ok(trade?.type === "trade");
      assert.equal(trade.makerRemaining, 6);
      assert.equal(trade.takerRemaining, 0);
      assert.deepEqual(trades(place(book, { orderId: "t2", isBid: true, price: 100, amount: 7 })), [
        ["ask1", "t2", 100, 6],
        ["ask2", "t2", 100, 1],
      ]);
      assert.equal(book.order("ask2")?.remaining, 9);
    });

    it("trades at the resting price and rests a GTC remainder at its limit", () => {
      const book = create();
      place(book, { orderId: "ask", userId: "bob", isBid: false, price: 99, amount: 2 });
      const events = place(book, { orderId: "bid", isBid: true, price: 105, amount: 5 });
      assert.deepEqual(trades(events), [["ask", "bid", 99, 2]]);
      assert.deepEqual(lastEvent(events), {
        type: "done",
        orderId: "bid",
        userId: "alice",
        isBid: true,
        price: 105,
        filled: 2,
        remaining: 3,
        status: "resting",
        reason: null,
      });
      assert.equal(book.bestBid(), 105);
      assert.equal(book.bestAsk(), null);
    });

    it("does not trade past the limit price", () => {
      const book = create();
      place(book, { orderId: "ask", userId: "bob", isBid: false, price: 101, amount: 2 });
      const events = place(book, { orderId: "bid", isBid: true, price: 100, amount: 2 });
      assert.deepEqual(trades(events), []);
      assert.equal(book.bestBid(), 100);
      assert.equal(book.bestAsk(), 101);
    });

    it("numbers trades strictly increasing from lastTradeSeq and echoes the command timestamp", () => {
      const book = create({ lastTradeSeq: 41 });
      place(book, { orderId: "a1", userId: "bob", isBid: false, price: 100, amount: 1 });
      place(book, { orderId: "a2", userId: "bob", isBid: false, price: 101, amount: 1 });
      const events = place(book, {
        orderId: "t",
        isBid: true,
        price: 101,
        amount: 2,
        timestamp: 1_714_000_000_123_456,
      });
      const seqs = events.flatMap((event) => (event.type === "trade" ? [[event.tradeSeq, event.timestamp]] : []));
      assert.deepEqual(seqs, [
        [42, 1_714_000_000_123_456],
        [43, 1_714_000_000_123_456],
      ]);
      assert.equal(book.lastTradeSeq, 43);
    });
  });

  describe(`${name}: time in force`, () => {
    it("IOC trades what it can and drops the rest", () => {
      const book = create();
      place(book, { orderId: "ask", userId: "bob", isBid: false, price: 100, amount: 2 });
      const events = place(book, { orderId: "ioc", isBid: true, price: 100, amount: 5, timeInForce: "IOC" });
      assert.deepEqual(trades(events), [["ask", "ioc", 100, 2]]);
      assert.deepEqual(lastEvent(events), {
        type: "done",
        orderId: "ioc",
        userId: "alice",
        isBid: true,
        price: 100,
        filled: 2,
        remaining: 3,
        status: "cancelled",
        reason: "UNFILLED",
      });
      assert.equal(book.bestBid(), null);
    });

    it("FOK that cannot fill whole is rejected and leaves the book untouched", () => {
      const book = create();
      place(book, { orderId: "ask1", userId: "bob", isBid: false, price: 100, amount: 2 });
      place(book, { orderId: "ask2", userId: "bob", isBid: false, price: 102, amount: 5 });
      const before = book.restingOrders();
      const events = place(book, { orderId: "fok", isBid: true, price: 101, amount: 3, timeInForce: "FOK" });
      assert.deepEqual(events, [{ type: "rejected", orderId: "fok", code: "FOK_NOT_FILLABLE" }]);
      assert.deepEqual(book.restingOrders(), before);
    });

    it("FOK that can fill whole fills across levels", () => {
      const book = create();
      place(book, { orderId: "ask1", userId: "bob", isBid: false, price: 100, amount: 2 });
      place(book, { orderId: "ask2", userId: "carol", isBid: false, price: 101, amount: 5 });
      const events = place(book, { orderId: "fok", isBid: true, price: 101, amount: 3, timeInForce: "FOK" });
      assert.deepEqual(trades(events), [
        ["ask1", "fok", 100, 2],
        ["ask2", "fok", 101, 1],
      ]);
      assert.equal(doneStatus(events), "filled");
    });
  });

  describe(`${name}: market orders`, () => {
    it("sweeps levels and drops what the book cannot fill", () => {
      const book = create();
      place(book, { orderId: "bid1", userId: "bob", isBid: true, price: 100, amount: 2 });
      place(book, { orderId: "bid2", userId: "bob", isBid: true, price: 90, amount: 2 });
      const events = place(book, { orderId: "m", isBid: false, type: "market", amount: 5 });
      assert.deepEqual(trades(events), [
        ["bid1", "m", 100, 2],
        ["bid2", "m", 90, 2],
      ]);
      assert.deepEqual(lastEvent(events), {
        type: "done",
        orderId: "m",
        userId: "alice",
        isBid: false,
        price: null,
        filled: 4,
        remaining: 1,
        status: "cancelled",
        reason: "UNFILLED",
      });
    });

    it("is rejected with NO_LIQUIDITY on an empty opposite side", () => {
      const book = create();
      place(book, { orderId: "own-side", userId: "bob", isBid: true, price: 100, amount: 2 });
      assert.deepEqual(place(book, { orderId: "m", isBid: true, type: "market", amount: 1 }), [
        { type: "rejected", orderId: "m", code: "NO_LIQUIDITY" },
      ]);
    });

    it("a market buy stops at its quote budget, buying only whole lots it can pay for", () => {
      const book = create();
      place(book, { orderId: "ask1", userId: "bob", isBid: false, price: 100, amount: 3 });
      place(book, { orderId: "ask2", userId: "bob", isBid: false, price: 150, amount: 10 });
      // 3 * 100 = 300 spent, 349 left buys two lots at 150 (300), 49 is not enough for a third.
      const events = place(book, { orderId: "m", isBid: true, type: "market", amount: 100, quoteBudget: 649n });
      assert.deepEqual(trades(events), [
        ["ask1", "m", 100, 3],
        ["ask2", "m", 150, 2],
      ]);
      assert.deepEqual(lastEvent(events), {
        type: "done",
        orderId: "m",
        userId: "alice",
        isBid: true,
        price: null,
        filled: 5,
        remaining: 95,
        status: "cancelled",
        reason: "BUDGET_EXHAUSTED",
      });
      assert.equal(book.order("ask2")?.remaining, 8);
    });

    it("stops at the first lot its budget cannot pay for, before self-trade prevention reaches further orders", () => {
      const book = create();
      place(book, { orderId: "other", userId: "bob", isBid: false, price: 102, amount: 2 });
      place(book, { orderId: "own", userId: "alice", isBid: false, price: 102, amount: 1 });
      const events = place(book, { orderId: "m", isBid: true, type: "market", amount: 2, quoteBudget: 102n });
      assert.deepEqual(
        events.map((event) => event.type),
        ["accepted", "trade", "done"],
      );
      assert.equal(book.order("own")?.remaining, 1);
      assert.equal(book.order("other")?.remaining, 1);
    });

    it("FOK market buy counts its budget when deciding fillability", () => {
      const book = create();
      place(book, { orderId: "ask", userId: "bob", isBid: false, price: 100, amount: 10 });
      const tooPoor = place(book, {
        orderId: "m1",
        isBid: true,
        type: "market",
        amount: 5,
        timeInForce: "FOK",
        quoteBudget: 499n,
      });
      assert.deepEqual(tooPoor, [{ type: "rejected", orderId: "m1", code: "FOK_NOT_FILLABLE" }]);
      const enough = place(book, {
        orderId: "m2",
        isBid: true,
        type: "market",
        amount: 5,
        timeInForce: "FOK",
        quoteBudget: 500n,
      });
      assert.deepEqual(trades(enough), [["ask", "m2", 100, 5]]);
    });
  });

  describe(`${name}: post-only`, () => {
    it("is rejected when it would take liquidity", () => {
      const book = create();
      place(book, { orderId: "ask", userId: "bob", isBid: false, price: 100, amount: 1 });
      assert.deepEqual(place(book, { orderId: "po", isBid: true, price: 100, amount: 1, postOnly: true }), [
        { type: "rejected", orderId: "po", code: "POST_ONLY_WOULD_TAKE" },
      ]);
      assert.equal(book.order("ask")?.remaining, 1);
    });

    it("rests when it does not cross", () => {
      const book = create();
      place(book, { orderId: "ask", userId: "bob", isBid: false, price: 100, amount: 1 });
      const events = place(book, { orderId: "po", isBid: true, price: 99, amount: 1, postOnly: true });
      assert.equal(doneStatus(events), "resting");
    });
  });

  describe(`${name}: self-trade prevention`, () => {
    it("cancel_resting cancels the taker's own resting orders and keeps matching others", () => {
      const book = create();
      place(book, { orderId: "own", userId: "alice", isBid: false, price: 100, amount: 2 });
      place(book, { orderId: "other", userId: "bob", isBid: false, price: 100, amount: 2 });
      const events = place(book, {
        orderId: "t",
        userId: "alice",
        isBid: true,
        price: 100,
        amount: 3,
        selfTradePrevention: "cancel_resting",
      });
      assert.deepEqual(
        events.map((event) => event.type),
        ["accepted", "cancelled", "trade", "done"],
      );
      assert.deepEqual(events[1], {
        type: "cancelled",
        orderId: "own",
        userId: "alice",
        isBid: false,
        price: 100,
        remaining: 2,
        reason: "SELF_TRADE",
      });
      assert.deepEqual(trades(events), [["other", "t", 100, 2]]);
      assert.equal(book.order("own"), undefined);
      assert.equal(book.order("t")?.remaining, 1);
    });

    it("cancel_taker trades with others ahead of the own order, then drops the taker and keeps the resting one", () => {
      const book = create();
      place(book, { orderId: "other", userId: "bob", isBid: false, price: 100, amount: 1 });
      place(book, { orderId: "own", userId: "alice", isBid: false, price: 101, amount: 2 });
      place(book, { orderId: "behind", userId: "bob", isBid: false, price: 101, amount: 2 });
      const events = place(book, {
        orderId: "t",
        userId: "alice",
        isBid: true,
        price: 101,
        amount: 4,
        selfTradePrevention: "cancel_taker",
      });
      assert.deepEqual(trades(events), [["other", "t", 100, 1]]);
      assert.deepEqual(lastEvent(events), {
        type: "done",
        orderId: "t",
        userId: "alice",
        isBid: true,
        price: 101,
        filled: 1,
        remaining: 3,
        status: "cancelled",
        reason: "SELF_TRADE",
      });
      assert.equal(book.order("own")?.remaining, 2);
      assert.equal(book.order("t"), undefined);
    });

    it("FOK does not count the taker's own orders as liquidity", () => {
      const book = create();
      place(book, { orderId: "own", userId: "alice", isBid: false, price: 100, amount: 5 });
      place(book, { orderId: "other", userId: "bob", isBid: false, price: 100, amount: 2 });
      for (const selfTradePrevention of ["cancel_resting", "cancel_taker"] as const) {
        assert.deepEqual(
          place(book, {
            orderId: `fok-${selfTradePrevention}`,
            userId: "alice",
            amount: 3,
            price: 100,
            timeInForce: "FOK",
            selfTradePrevention,
          }),
          [{ type: "rejected", orderId: `fok-${selfTradePrevention}`, code: "FOK_NOT_FILLABLE" }],
        );
      }
      assert.equal(book.order("own")?.remaining, 5);
      const fillable = place(book, {
        orderId: "fok-ok",
        userId: "alice",
        amount: 2,
        price: 100,
        timeInForce: "FOK",
        selfTradePrevention: "cancel_resting",
      });
      assert.deepEqual(trades(fillable), [["other", "fok-ok", 100, 2]]);
      assert.equal(book.order("own"), undefined, "cancel_resting still removes the own order it passed");
    });
  });

  describe(`${name}: cancels`, () => {
    it("cancels a resting order with its unfilled remainder, and only once", () => {
      const book = create();
      place(book, { orderId: "ask", userId: "bob", isBid: false, price: 100, amount: 5 });
      place(book, { orderId: "t", isBid: true, price: 100, amount: 2 });
      assert.deepEqual(book.execute({ kind: "cancel", orderId: "ask" }), [
        {
          type: "cancelled",
          orderId: "ask",
          userId: "bob",
          isBid: false,
          price: 100,
          remaining: 3,
          reason: "USER_CANCEL",
        },
      ]);
      assert.deepEqual(book.execute({ kind: "cancel", orderId: "ask" }), [
        { type: "rejected", orderId: "ask", code: "UNKNOWN_ORDER" },
      ]);
      assert.equal(book.bestAsk(), null);
    });

    it("cancelAll removes only that user's orders, in the order they came to rest", () => {
      const book = create();
      place(book, { orderId: "b-bid", userId: "bob", isBid: true, price: 90, amount: 1 });
      place(book, { orderId: "a-ask", userId: "alice", isBid: false, price: 110, amount: 1 });
      place(book, { orderId: "b-ask", userId: "bob", isBid: false, price: 105, amount: 1 });
      place(book, { orderId: "b-bid2", userId: "bob", isBid: true, price: 95, amount: 1 });
      const events = book.execute({ kind: "cancelAll", userId: "bob" });
      assert.deepEqual(
        events.map((event) => event.type === "cancelled" && event.orderId),
        ["b-bid", "b-ask", "b-bid2"],
      );
      assert.deepEqual(
        book.restingOrders().map((order) => order.orderId),
        ["a-ask"],
      );
      assert.deepEqual(book.execute({ kind: "cancelAll", userId: "bob" }), []);
    });

    it("frees the id of a cancelled order but refuses a duplicate of a resting one", () => {
      const book = create();
      place(book, { orderId: "x", isBid: true, price: 90, amount: 1 });
      assert.deepEqual(place(book, { orderId: "x", isBid: true, price: 91, amount: 1 }), [
        { type: "rejected", orderId: "x", code: "DUPLICATE_ORDER_ID" },
      ]);
      book.execute({ kind: "cancel", orderId: "x" });
      assert.equal(place(book, { orderId: "x", isBid: true, price: 91, amount: 1 })[0].type, "accepted");
    });
  });

  describe(`${name}: validation`, () => {
    const cases: [string, Parameters<typeof place>[1], string][] = [
      ["zero amount", { orderId: "v", price: 1, amount: 0 }, "INVALID_AMOUNT"],
      ["fractional amount", { orderId: "v", price: 1, amount: 1.5 }, "INVALID_AMOUNT"],
      ["amount past 2^53", { orderId: "v", price: 1, amount: 2 ** 53 }, "INVALID_AMOUNT"],
      ["limit without price", { orderId: "v", amount: 1 }, "INVALID_PRICE"],
      ["negative price", { orderId: "v", price: -1, amount: 1 }, "INVALID_PRICE"],
      ["market with a price", { orderId: "v", type: "market", price: 1, amount: 1 }, "INVALID_PRICE"],
      ["market GTC", { orderId: "v", type: "market", amount: 1, timeInForce: "GTC" }, "INVALID_TIME_IN_FORCE"],
      ["post-only market", { orderId: "v", type: "market", amount: 1, postOnly: true }, "INVALID_POST_ONLY"],
      ["post-only IOC", { orderId: "v", price: 1, amount: 1, timeInForce: "IOC", postOnly: true }, "INVALID_POST_ONLY"],
      ["budget on a limit order", { orderId: "v", price: 1, amount: 1, quoteBudget: 5n }, "INVALID_QUOTE_BUDGET"],
      [
        "budget on a market sell",
        { orderId: "v", type: "market", isBid: false, amount: 1, quoteBudget: 5n },
        "INVALID_QUOTE_BUDGET",
      ],
      ["zero budget", { orderId: "v", type: "market", amount: 1, quoteBudget: 0n }, "INVALID_QUOTE_BUDGET"],
    ];
    for (const [label, input, code] of cases) {
      it(`rejects ${label} with ${code}`, () => {
        const book = create();
        place(book, { orderId: "liquidity", userId: "bob", isBid: false, price: 1, amount: 1 });
        assert.deepEqual(place(book, input), [{ type: "rejected", orderId: "v", code }]);
      });
    }
  });

  describe(`${name}: depth`, () => {
    it("sums levels best first, exactly past 2^53", () => {
      const book = create();
      const big = Number.MAX_SAFE_INTEGER;
      place(book, { orderId: "b1", userId: "bob", isBid: true, price: 99, amount: big });
      place(book, { orderId: "b2", userId: "carol", isBid: true, price: 99, amount: big });
      place(book, { orderId: "b3", userId: "bob", isBid: true, price: 100, amount: 1 });
      assert.deepEqual(book.depth(true, 5), [
        { price: 100, amount: 1n, orders: 1 },
        { price: 99, amount: 2n * BigInt(big), orders: 2 },
      ]);
      assert.deepEqual(book.depth(true, 1), [{ price: 100, amount: 1n, orders: 1 }]);
      assert.deepEqual(book.depth(false, 5), []);
    });
  });
}
