import { FastBook } from "../../exchange/core/matching/index.ts";
import { mulberry32 } from "../../lib/random.ts";

// The bench's order stream: limit orders around a moving mid price, 20% cancels of
// orders that really rest, 5% market orders, about 1,000 resting orders. It is
// generated once (by driving our own book so cancels hit live ids) and then fed
// unchanged to every engine under test.

export type StreamOp =
  | {
      readonly kind: "limit";
      readonly id: string;
      readonly userId: string;
      readonly isBid: boolean;
      readonly price: number;
      readonly size: number;
    }
  | {
      readonly kind: "market";
      readonly id: string;
      readonly userId: string;
      readonly isBid: boolean;
      readonly size: number;
    }
  | { readonly kind: "cancel"; readonly id: string };

export interface Stream {
  /** Non-crossing orders that build the initial book; not timed. */
  readonly prefill: StreamOp[];
  readonly ops: StreamOp[];
  readonly averageResting: number;
  readonly trades: number;
}

const MID_PRICE = 100_000;
const TARGET_RESTING = 1_000;
const USERS = 200;

export function generateStream(seed: number, opCount: number): Stream {
  const random = mulberry32(seed);
  const integer = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const book = new FastBook();
  const resting: string[] = [];
  const restingIndex = new Map<string, number>();
  let nextId = 0;
  let trades = 0;

  const track = (op: StreamOp) => {
    const events =
      op.kind === "cancel"
        ? book.execute({ kind: "cancel", orderId: op.id })
        : book.execute({
            kind: "place",
            orderId: op.id,
            userId: op.userId,
            isBid: op.isBid,
            type: op.kind,
            price: op.kind === "limit" ? op.price : undefined,
            amount: op.size,
            timeInForce: op.kind === "limit" ? "GTC" : "IOC",
            postOnly: false,
            selfTradePrevention: "cancel_resting",
            timestamp: 0,
          });
    for (const event of events) {
      if (event.type === "trade") trades++;
      if (event.type === "done" && event.status === "resting") {
        restingIndex.set(event.orderId, resting.length);
        resting.push(event.orderId);
      }
      const gone =
        event.type === "cancelled"
          ? event.orderId
          : event.type === "trade" && event.makerRemaining === 0
            ? event.makerOrderId
            : null;
      if (gone !== null) {
        // Swap-remove keeps picking a random live id O(1).
        const index = restingIndex.get(gone)!;
        const last = resting.pop()!;
        if (last !== gone) {
          resting[index] = last;
          restingIndex.set(last, index);
        }
        restingIndex.delete(gone);
      }
    }
  };

  const limitOrder = (marketable: boolean): StreamOp => {
    const isBid = random() < 0.5;
    const bestOpposite = (isBid ? book.bestAsk() : book.bestBid()) ?? MID_PRICE;
    const direction = isBid ? 1 : -1;
    // Marketable orders reach a few ticks past the best opposite price; passive ones
    // rest up to 50 ticks behind it, so the book keeps a realistic spread of levels.
    const price = marketable ? bestOpposite + direction * integer(0, 5) : bestOpposite - direction * integer(1, 50);
    return {
      kind: "limit",
      id: `o${nextId++}`,
      userId: `u${integer(1, USERS)}`,
      isBid,
      price,
      size: integer(1, marketable ? 60 : 20),
    };
  };

  const prefill: StreamOp[] = [];
  for (let i = 0; i < TARGET_RESTING; i++) {
    const isBid = i % 2 === 0;
    const price = MID_PRICE + (isBid ? -integer(1, 100) : integer(1, 100));
    const op: StreamOp = {
      kind: "limit",
      id: `o${nextId++}`,
      userId: `u${integer(1, USERS)}`,
      isBid,
      price,
      size: integer(1, 20),
    };
    prefill.push(op);
    track(op);
  }

  const ops: StreamOp[] = [];
  let restingSum = 0;
  for (let i = 0; i < opCount; i++) {
    const roll = random();
    let op: StreamOp;
    if (roll < 0.2 && resting.length > 0) {
      op = { kind: "cancel", id: resting[integer(0, resting.length - 1)] };
    } else if (roll < 0.25) {
      op = {
        kind: "market",
        id: `o${nextId++}`,
        userId: `u${integer(1, USERS)}`,
        isBid: random() < 0.5,
        size: integer(1, 20),
      };
    } else {
      // Feedback on how often a limit order takes liquidity holds the book near its target size.
      const takeProbability = Math.min(0.95, Math.max(0.05, 0.3 + (resting.length - TARGET_RESTING) / TARGET_RESTING));
      op = limitOrder(random() < takeProbability);
    }
    ops.push(op);
    track(op);
    restingSum += resting.length;
  }
  return { prefill, ops, averageResting: Math.round(restingSum / opCount), trades };
}
