import type { Exchange, OrderResult, PlaceOrderInput } from "../../../exchange/application/index.ts";
import { mulberry32 as rng } from "../../../lib/random.ts";

// A realistic ALPHA_USDT market for the load test: a few hundred resting orders on both sides,
// then takers hitting the best price on a random side while makers refill near the touch, so
// deals land on many prices and the book keeps its depth. Orders go straight to the in-process
// exchange (no HTTP or signing: that is not what this bench measures). Its commands apply to the
// book synchronously and only wait for the commit, so a batch of them is awaited together.

export const PAIR = "ALPHA_USDT";
const START_TICKS = 5000; // 0.5000 USDT; ALPHA_USDT prices have 4 digits (a tick is 0.0001)
const TICKS_PER_UNIT = 10_000;
const BATCH = 100;

export interface FilledMarket {
  readonly deals: number;
  readonly restingOrders: number;
  readonly bidLevels: number;
  readonly askLevels: number;
}

export async function fillMarket(
  exchange: Exchange,
  opts: { seed: number; deals: number; resting: number },
): Promise<FilledMarket> {
  const random = rng(opts.seed);
  const users = async (n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const { id } = await exchange.createUser(0, null);
      await exchange.deposit({ userId: id, currency: "USDT", amount: "100000000", reference: null });
      await exchange.deposit({ userId: id, currency: "ALPHA", amount: "1000000000", reference: null });
      ids.push(id);
    }
    return ids;
  };
  // Makers only rest and takers only take, so self-trade prevention never cancels anything.
  const makers = await users(2);
  const takers = await users(2);
  const book = exchange.market(PAIR).book;
  const pending: Promise<OrderResult>[] = [];
  let deals = 0;
  const flush = async () => (deals += (await Promise.all(pending.splice(0))).reduce((n, r) => n + r.fills.length, 0));
  const price = (ticks: number) => (Math.max(ticks, 1) / TICKS_PER_UNIT).toFixed(4);
  // At least 1.05 USDT (the pair's minQuoteAmount is 1), plus a random size; amounts have 2 digits.
  const amount = (ticks: number, extra: number) =>
    (Math.ceil((1.05 * TICKS_PER_UNIT) / Math.max(ticks, 1)) + Math.floor(random() * extra)).toFixed(2);
  const rest = (isBid: boolean, ticks: number) => {
    const input: PlaceOrderInput = {
      currencyPairCode: PAIR,
      type: "limit",
      isBid,
      price: price(ticks),
      amount: amount(ticks, 100),
    };
    pending.push(exchange.placeOrder(makers[Math.floor(random() * makers.length)], input));
  };
  const restingOn = (isBid: boolean) =>
    makers.reduce((n, id) => n + exchange.openOrdersOf(id, PAIR).filter((o) => o.isBid === isBid).length, 0);

  for (let i = 0; i < opts.resting; i++)
    rest(i % 2 === 0, START_TICKS + (i % 2 === 0 ? -1 : 1) * (1 + Math.floor(random() * 100)));
  await flush();

  let last = START_TICKS;
  while (deals < opts.deals) {
    for (let i = 0; i < BATCH; i++) {
      const takerBuys = random() < 0.5;
      const touch = takerBuys ? book.bestAsk() : book.bestBid();
      if (touch !== null) {
        const input: PlaceOrderInput = {
          currencyPairCode: PAIR,
          type: "limit",
          timeInForce: "IOC",
          isBid: takerBuys,
          price: price(touch),
          amount: amount(touch, 40),
        };
        pending.push(exchange.placeOrder(takers[i % takers.length], input));
        last = touch;
      }
      // Refill the side the taker ate from, a few ticks behind the other side's best price.
      const side = !takerBuys;
      if (restingOn(side) < opts.resting / 2) {
        const other = (side ? book.bestAsk() : book.bestBid()) ?? last;
        rest(side, other + (side ? -1 : 1) * (1 + Math.floor(random() * 40)));
      }
    }
    await flush();
  }
  return {
    deals,
    restingOrders: restingOn(true) + restingOn(false),
    bidLevels: book.depth(true, Number.MAX_SAFE_INTEGER).length,
    askLevels: book.depth(false, Number.MAX_SAFE_INTEGER).length,
  };
}
