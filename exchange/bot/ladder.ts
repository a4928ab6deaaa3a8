import { ceilDiv, formatUnits, parseUnits } from "../core/money/index.ts";
import { fail, ok, type Result } from "../core/result.ts";
import { randomBigInt, randomInt, type Random } from "./random.ts";

// The market-making bot's pure arithmetic: a bounded random walk of each pair's mid price, the
// ladder of quotes around it, and the taker's crossing order. Prices are integer ticks
// (price x 10^digitsPrice), amounts integer lots (amount x 10^digitsAmount), and order values
// integer "tick-lots" (ticks x lots = quote x 10^(digitsPrice + digitsAmount)), all bigint:
// money never passes through a float. Randomness only chooses steps, sides and sizes.

/** A pair as GET /api/currencies/pairs describes it (minQuoteAmount as exact decimal text). */
export interface PairSettings {
  readonly code: string;
  readonly digitsPrice: number;
  readonly digitsAmount: number;
  readonly minQuoteAmount: string | null;
}

/** What the bot does on a pair: decimal texts in the pair's quote currency. */
export interface MarketConfig {
  /** Where the mid price starts. */
  readonly startMid: string;
  /** Quote value of the first ladder level; level i (from 1) is worth i times this. */
  readonly levelQuote: string;
  /** Typical quote value of a taker order (randomised between 50% and 150%). */
  readonly takerQuote: string;
}

/**
 * How the bot quotes the demo's pairs: ETH_USDT (exchange/demo/reference-data.ts), the pairs
 * the seed's agent tokens are listed as (scripts/lib/seed-demo.ts), and the test fixture's
 * GAMMA_ETH (support/exchange/fixture-market.ts).
 */
export const DEFAULT_MARKETS: Readonly<Record<string, MarketConfig>> = {
  ETH_USDT: { startMid: "3000", levelQuote: "150", takerQuote: "40" },
  ALPHA_USDT: { startMid: "0.5", levelQuote: "50", takerQuote: "10" },
  BETA_USDT: { startMid: "0.25", levelQuote: "50", takerQuote: "10" },
  GAMMA_USDT: { startMid: "0.6", levelQuote: "50", takerQuote: "10" },
  GAMMA_ETH: { startMid: "0.0002", levelQuote: "0.02", takerQuote: "0.005" },
};

/** The demo pairs' settings, used when the server has no GET /api/currencies/pairs. */
export const DEFAULT_PAIR_SETTINGS: readonly PairSettings[] = [
  { code: "ETH_USDT", digitsPrice: 2, digitsAmount: 4, minQuoteAmount: "1" },
  { code: "ALPHA_USDT", digitsPrice: 4, digitsAmount: 2, minQuoteAmount: "1" },
  { code: "BETA_USDT", digitsPrice: 4, digitsAmount: 2, minQuoteAmount: "1" },
  { code: "GAMMA_USDT", digitsPrice: 4, digitsAmount: 2, minQuoteAmount: "1" },
  { code: "GAMMA_ETH", digitsPrice: 8, digitsAmount: 2, minQuoteAmount: "0.0005" },
];

export interface MarketPlan {
  readonly code: string;
  readonly digitsPrice: number;
  readonly digitsAmount: number;
  /** The pair's minQuoteAmount in tick-lots (rounded up), 0 when there is none. */
  readonly minValue: bigint;
  readonly startMid: bigint;
  /** Bounds of the walk, in ticks: half and twice the start. */
  readonly minMid: bigint;
  readonly maxMid: bigint;
  readonly levelValue: bigint;
  readonly takerValue: bigint;
}

export interface LadderOptions {
  readonly levels: number;
  /** Distance between the best bid and the best ask, in basis points of the mid. */
  readonly spreadBps: number;
  /** Distance between two levels of one side, in basis points of the mid. */
  readonly stepBps: number;
}

export const DEFAULT_LADDER: LadderOptions = { levels: 5, spreadBps: 20, stepBps: 10 };

/** Largest move of the mid in one tick, in basis points. */
export const DEFAULT_MAX_STEP_BPS = 15;

export interface Quote {
  readonly isBid: boolean;
  readonly priceTicks: bigint;
  readonly lots: bigint;
  /** Exact decimal texts with the pair's digits, ready for a request body. */
  readonly price: string;
  readonly amount: string;
}

export interface Ladder {
  /** Best first: highest bid first, lowest ask first. */
  readonly bids: Quote[];
  readonly asks: Quote[];
}

/** The body of POST /api/orders; decimals as strings (exact). */
export interface OrderBody {
  isBid: boolean;
  currencyPairCode: string;
  amount: string;
  price?: string;
  type: "limit" | "market";
  timeInForce: "GTC" | "IOC" | "FOK";
}

const valueDigits = (plan: { digitsPrice: number; digitsAmount: number }) => plan.digitsPrice + plan.digitsAmount;

/** Combines a pair's settings with the bot's config into integer form; refuses texts that do not fit. */
export function planMarket(settings: PairSettings, config: MarketConfig): Result<MarketPlan, "INVALID_MARKET"> {
  const { code, digitsPrice, digitsAmount } = settings;
  const digits = valueDigits(settings);
  const startMid = parseUnits(config.startMid, digitsPrice, "exact");
  if (!startMid.ok || startMid.value <= 0n)
    return fail(
      "INVALID_MARKET",
      `${code}: start mid ${config.startMid} is not a positive price with ${digitsPrice} decimals`,
    );
  if (startMid.value < 100n)
    return fail(
      "INVALID_MARKET",
      `${code}: start mid ${config.startMid} is under 100 ticks; the walk and ladder need finer prices`,
    );
  const minValue = settings.minQuoteAmount === null ? ok(0n) : parseUnits(settings.minQuoteAmount, digits, "up");
  if (!minValue.ok || minValue.value < 0n)
    return fail("INVALID_MARKET", `${code}: minQuoteAmount ${settings.minQuoteAmount} is not a decimal`);
  const levelValue = parseUnits(config.levelQuote, digits, "up");
  const takerValue = parseUnits(config.takerQuote, digits, "up");
  if (!levelValue.ok || levelValue.value <= 0n)
    return fail("INVALID_MARKET", `${code}: level quote ${config.levelQuote} is not a positive decimal`);
  if (!takerValue.ok || takerValue.value <= 0n)
    return fail("INVALID_MARKET", `${code}: taker quote ${config.takerQuote} is not a positive decimal`);
  return ok({
    code,
    digitsPrice,
    digitsAmount,
    minValue: minValue.value,
    startMid: startMid.value,
    minMid: startMid.value / 2n,
    maxMid: startMid.value * 2n,
    levelValue: levelValue.value,
    takerValue: takerValue.value,
  });
}

/** max(1, mid x bps / 10000), in ticks. */
export function bpsOf(mid: bigint, bps: number): bigint {
  if (!Number.isSafeInteger(bps) || bps < 0)
    throw new RangeError(`basis points must be a non-negative integer, got ${bps}`);
  const ticks = (mid * BigInt(bps)) / 10_000n;
  return ticks > 0n ? ticks : 1n;
}

/**
 * One step of the walk: a uniform move of at most maxStepBps of the mid, reflected back inside
 * [minMid, maxMid] when it would leave it.
 */
export function nextMid(
  plan: Pick<MarketPlan, "minMid" | "maxMid">,
  mid: bigint,
  random: Random,
  maxStepBps = DEFAULT_MAX_STEP_BPS,
): bigint {
  const maxStep = bpsOf(mid, maxStepBps);
  let next = mid + randomBigInt(random, -maxStep, maxStep);
  if (next < plan.minMid) next = plan.minMid + (plan.minMid - next);
  if (next > plan.maxMid) next = plan.maxMid - (next - plan.maxMid);
  if (next < plan.minMid) next = plan.minMid;
  return next;
}

/** Lots that make an order at `priceTicks` worth at least `value` and the pair's minimum; at least 1. */
export function lotsFor(plan: Pick<MarketPlan, "minValue">, priceTicks: bigint, value: bigint): bigint {
  if (priceTicks <= 0n) throw new RangeError("lotsFor: price must be positive");
  const wanted = ceilDiv(value, priceTicks);
  const minimum = ceilDiv(plan.minValue, priceTicks);
  const lots = wanted > minimum ? wanted : minimum;
  return lots > 0n ? lots : 1n;
}

export function quote(
  plan: Pick<MarketPlan, "digitsPrice" | "digitsAmount">,
  isBid: boolean,
  priceTicks: bigint,
  lots: bigint,
): Quote {
  return {
    isBid,
    priceTicks,
    lots,
    price: formatUnits(priceTicks, plan.digitsPrice),
    amount: formatUnits(lots, plan.digitsAmount),
  };
}

/** `levels` bids under and asks over the mid, each level larger than the one before. */
export function buildLadder(plan: MarketPlan, mid: bigint, options: LadderOptions = DEFAULT_LADDER): Ladder {
  const halfSpread = (mid * BigInt(options.spreadBps)) / 20_000n;
  const half = halfSpread > 0n ? halfSpread : 1n;
  const step = bpsOf(mid, options.stepBps);
  const bids: Quote[] = [];
  const asks: Quote[] = [];
  for (let i = 0; i < options.levels; i++) {
    const value = plan.levelValue * BigInt(i + 1);
    const bidPrice = mid - half - step * BigInt(i);
    if (bidPrice > 0n) bids.push(quote(plan, true, bidPrice, lotsFor(plan, bidPrice, value)));
    const askPrice = mid + half + step * BigInt(i);
    asks.push(quote(plan, false, askPrice, lotsFor(plan, askPrice, value)));
  }
  return { bids, asks };
}

/** The ladder as request bodies (GTC limit orders). */
export function ladderOrders(code: string, ladder: Ladder): OrderBody[] {
  return [...ladder.bids, ...ladder.asks].map((q) => ({
    isBid: q.isBid,
    currencyPairCode: code,
    amount: q.amount,
    price: q.price,
    type: "limit",
    timeInForce: "GTC",
  }));
}

/**
 * A small order that crosses the ladder so a deal happens: a random side, worth 50% to 150% of
 * takerValue; an IOC limit at the second level of the other side (so it may take two levels),
 * or one time in four a market order.
 */
export function takerOrder(plan: MarketPlan, ladder: Ladder, random: Random): OrderBody | null {
  const isBid = random() < 0.5;
  const other = isBid ? ladder.asks : ladder.bids;
  if (other.length === 0) return null;
  const value = (plan.takerValue * BigInt(randomInt(random, 50, 150))) / 100n;
  const market = random() < 0.25;
  const limit = other[Math.min(1, other.length - 1)].priceTicks;
  // A sell's value is counted at its limit (lower than the best bid), a buy's at the best ask.
  const valuedAt = isBid ? other[0].priceTicks : limit;
  const lots = lotsFor(plan, valuedAt, value);
  const amount = formatUnits(lots, plan.digitsAmount);
  if (market) return { isBid, currencyPairCode: plan.code, amount, type: "market", timeInForce: "IOC" };
  return {
    isBid,
    currencyPairCode: plan.code,
    amount,
    price: formatUnits(limit, plan.digitsPrice),
    type: "limit",
    timeInForce: "IOC",
  };
}

/**
 * How many pairs the market maker can re-quote per tick within `requestsPerMinute` on its key
 * (one cancel-all plus one request per quote); at least 1, at most `pairs`. The pairs take turns.
 */
export function pairsPerTick(args: {
  pairs: number;
  quotesPerPair: number;
  intervalMs: number;
  requestsPerMinute: number;
}): number {
  if (args.pairs <= 0) return 0;
  const ticksPerMinute = 60_000 / Math.max(1, args.intervalMs);
  const perPair = (1 + args.quotesPerPair) * ticksPerMinute;
  const fit = Math.floor(args.requestsPerMinute / perPair);
  return Math.max(1, Math.min(args.pairs, fit));
}
