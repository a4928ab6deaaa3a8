import { ModelBook } from "./model-book.ts";
import {
  FastBook,
  type BookEvent,
  type BookOptions,
  type OrderBook,
  type PlaceCommand,
} from "../../exchange/core/matching/index.ts";

/** Both implementations, so every behaviour test pins the fast book and the model alike. */
export const implementations: { name: string; create(options?: BookOptions): OrderBook }[] = [
  { name: "FastBook", create: (options) => new FastBook(options) },
  { name: "ModelBook", create: (options) => new ModelBook(options) },
];

export type PlaceInput = Partial<Omit<PlaceCommand, "kind">> & Pick<PlaceCommand, "orderId" | "amount">;

export function placeCommand(input: PlaceInput): PlaceCommand {
  const type = input.type ?? "limit";
  return {
    kind: "place",
    userId: "alice",
    isBid: true,
    type,
    timeInForce: type === "market" ? "IOC" : "GTC",
    postOnly: false,
    selfTradePrevention: "cancel_resting",
    timestamp: 1_000,
    ...input,
  };
}

export function place(book: OrderBook, input: PlaceInput): BookEvent[] {
  return book.execute(placeCommand(input));
}

/** Compact trade view for assertions: [maker, taker, price, amount]. */
export function trades(events: BookEvent[]): [string, string, number, number][] {
  return events.flatMap((event) =>
    event.type === "trade"
      ? [[event.makerOrderId, event.takerOrderId, event.price, event.amount] as [string, string, number, number]]
      : [],
  );
}

export function lastEvent(events: BookEvent[]): BookEvent {
  const last = events[events.length - 1];
  if (last === undefined) throw new Error("no events");
  return last;
}

export function doneStatus(events: BookEvent[]): string {
  const last = lastEvent(events);
  if (last.type !== "done") throw new Error(`last event is ${last.type}, not done`);
  return last.status;
}
