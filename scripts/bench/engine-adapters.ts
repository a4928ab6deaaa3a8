import { OrderBook as LibraryBook, SelfTradePreventionMode, Side } from "nodejs-order-book";
import { FastBook, type BookCommand } from "../../exchange/core/matching/index.ts";
import type { StreamOp } from "./engine-stream.ts";

/**
 * One engine under test: `prepare` turns the stream into that engine's own inputs
 * outside the timed region, `start` gives a fresh book and a function that runs op i.
 */
export interface EngineUnderTest {
  readonly name: string;
  prepare(prefill: StreamOp[], ops: StreamOp[]): { start(): RunningBook };
}

export interface RunningBook {
  run(index: number): unknown;
  /** Resting orders as sorted "id:size" text, to check both engines did the same work. */
  restingDigest(): string;
}

const digest = (entries: string[]) => entries.sort().join(",");

export const ourEngine: EngineUnderTest = {
  name: "exchange/matching FastBook",
  prepare(prefill, ops) {
    const toCommand = (op: StreamOp): BookCommand =>
      op.kind === "cancel"
        ? { kind: "cancel", orderId: op.id }
        : {
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
          };
    const prefillCommands = prefill.map(toCommand);
    const commands = ops.map(toCommand);
    return {
      start() {
        const book = new FastBook();
        for (const command of prefillCommands) book.execute(command);
        return {
          run: (index) => book.execute(commands[index]),
          restingDigest: () => digest(book.restingOrders().map((order) => `${order.orderId}:${order.remaining}`)),
        };
      },
    };
  },
};

type LibraryInput =
  | { kind: "limit"; options: Parameters<LibraryBook["limit"]>[0] }
  | { kind: "market"; options: Parameters<LibraryBook["market"]>[0] }
  | { kind: "cancel"; id: string };

export const libraryEngine: EngineUnderTest = {
  name: "nodejs-order-book",
  prepare(prefill, ops) {
    // EXPIRE_MAKER is the library's name for our cancel_resting self-trade prevention,
    // so both engines make the same trades on the same stream.
    const toInput = (op: StreamOp): LibraryInput => {
      if (op.kind === "cancel") return { kind: "cancel", id: op.id };
      const side = op.isBid ? Side.BUY : Side.SELL;
      const stp = { accountId: op.userId, stpMode: SelfTradePreventionMode.EXPIRE_MAKER };
      return op.kind === "limit"
        ? { kind: "limit", options: { id: op.id, side, size: op.size, price: op.price, ...stp } }
        : { kind: "market", options: { side, size: op.size, ...stp } };
    };
    const prefillInputs = prefill.map(toInput);
    const inputs = ops.map(toInput);
    const run = (book: LibraryBook, input: LibraryInput): unknown => {
      if (input.kind === "limit") return book.limit(input.options);
      if (input.kind === "market") return book.market(input.options);
      return book.cancel(input.id);
    };
    return {
      start() {
        const book = new LibraryBook();
        for (const input of prefillInputs) run(book, input);
        return {
          run: (index) => run(book, inputs[index]),
          restingDigest: () => {
            const { bids, asks } = book.snapshot();
            return digest(
              [...bids, ...asks].flatMap((level) => level.orders.map((order) => `${order.id}:${order.size}`)),
            );
          },
        };
      },
    };
  },
};
