// Commands and events of the per-pair matching core. Prices are integer ticks
// (price / 10^-digitsPrice) and amounts integer lots (amount / 10^-digitsAmount),
// both held in safe integers; see README.md for why not bigint.

export type OrderType = "limit" | "market";
export type TimeInForce = "GTC" | "IOC" | "FOK";
export type SelfTradePrevention = "cancel_resting" | "cancel_taker";

export interface PlaceCommand {
  readonly kind: "place";
  readonly orderId: string;
  readonly userId: string;
  readonly isBid: boolean;
  readonly type: OrderType;
  /** Limit price in ticks; must be absent for market orders. */
  readonly price?: number;
  /** Size in lots. */
  readonly amount: number;
  readonly timeInForce: TimeInForce;
  readonly postOnly: boolean;
  readonly selfTradePrevention: SelfTradePrevention;
  /**
   * Market bids only: the most the taker may spend, as sum(price * lots) in tick-lot
   * units. The ledger must lock a market buy's cost before it is known, so it locks a
   * budget and the engine must never spend past it. bigint because tick-lot products
   * leave the safe-integer range for ordinary pairs.
   */
  readonly quoteBudget?: bigint;
  /** Caller's clock, echoed into trades; the engine never reads a clock. */
  readonly timestamp: number;
}

export interface CancelCommand {
  readonly kind: "cancel";
  readonly orderId: string;
}

export interface CancelAllCommand {
  readonly kind: "cancelAll";
  readonly userId: string;
}

export type BookCommand = PlaceCommand | CancelCommand | CancelAllCommand;

export type RejectCode =
  | "INVALID_AMOUNT"
  | "INVALID_PRICE"
  | "INVALID_TIME_IN_FORCE"
  | "INVALID_POST_ONLY"
  | "INVALID_QUOTE_BUDGET"
  | "DUPLICATE_ORDER_ID"
  | "NO_LIQUIDITY"
  | "POST_ONLY_WOULD_TAKE"
  | "FOK_NOT_FILLABLE"
  | "UNKNOWN_ORDER";

/** Why a resting order left the book without filling. */
export type CancelReason = "USER_CANCEL" | "SELF_TRADE";

/** Why a taker's remainder did not rest. */
export type TakerEndReason = "SELF_TRADE" | "UNFILLED" | "BUDGET_EXHAUSTED";

export interface AcceptedEvent {
  readonly type: "accepted";
  readonly orderId: string;
  readonly userId: string;
  readonly isBid: boolean;
  readonly orderType: OrderType;
  readonly price: number | null;
  readonly amount: number;
}

export interface RejectedEvent {
  readonly type: "rejected";
  readonly orderId: string;
  readonly code: RejectCode;
}

export interface TradeEvent {
  readonly type: "trade";
  /** Per-pair, strictly increasing, starting after the book's lastTradeSeq. */
  readonly tradeSeq: number;
  readonly makerOrderId: string;
  readonly makerUserId: string;
  readonly takerOrderId: string;
  readonly takerUserId: string;
  /** true when the taker bought (the SPEC's Deal.isBuy). */
  readonly takerIsBid: boolean;
  /** The maker's price: a taker always trades at the resting price. */
  readonly price: number;
  readonly amount: number;
  readonly makerRemaining: number;
  readonly takerRemaining: number;
  readonly timestamp: number;
}

/** A resting order removed from the book with `remaining` lots unfilled. */
export interface CancelledEvent {
  readonly type: "cancelled";
  readonly orderId: string;
  readonly userId: string;
  readonly isBid: boolean;
  readonly price: number;
  readonly remaining: number;
  readonly reason: CancelReason;
}

/** Last event of every accepted place: what became of the taker. */
export interface DoneEvent {
  readonly type: "done";
  readonly orderId: string;
  readonly userId: string;
  readonly isBid: boolean;
  readonly price: number | null;
  readonly filled: number;
  /** Lots left: resting on the book when status is "resting", dropped when "cancelled". */
  readonly remaining: number;
  readonly status: "filled" | "resting" | "cancelled";
  readonly reason: TakerEndReason | null;
}

export type BookEvent = AcceptedEvent | RejectedEvent | TradeEvent | CancelledEvent | DoneEvent;

export interface RestingOrder {
  readonly orderId: string;
  readonly userId: string;
  readonly isBid: boolean;
  readonly price: number;
  readonly remaining: number;
}

export interface DepthLevel {
  readonly price: number;
  /** Sum of remaining lots; bigint because many large orders can pass 2^53 together. */
  readonly amount: bigint;
  readonly orders: number;
}

/** What every book implementation offers; the property test holds two of them to this. */
export interface OrderBook {
  execute(command: BookCommand): BookEvent[];
  bestBid(): number | null;
  bestAsk(): number | null;
  order(orderId: string): RestingOrder | undefined;
  /** Every resting order, bids then asks, each side in matching priority. */
  restingOrders(): RestingOrder[];
  depth(isBid: boolean, maxLevels: number): DepthLevel[];
  readonly lastTradeSeq: number;
}

export interface BookOptions {
  /** Restored from persistence so trade ids keep increasing across restarts. */
  readonly lastTradeSeq?: number;
}
