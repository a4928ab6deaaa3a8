export {
  cancelAllOrders,
  cancelOrder,
  placeOrder,
  type Outcome,
  type PairMarket,
  type PlaceOrderRequest,
  type PlaceRejectCode,
} from "./pair-market.ts";
