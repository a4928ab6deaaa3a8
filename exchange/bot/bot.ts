import { formatUnits } from "../core/money/index.ts";
import { ApiCallError, decimalText, type ExchangeHttp, type Key } from "./client.ts";
import {
  DEFAULT_LADDER,
  DEFAULT_MARKETS,
  DEFAULT_PAIR_SETTINGS,
  buildLadder,
  ladderOrders,
  nextMid,
  pairsPerTick,
  planMarket,
  takerOrder,
  type Ladder,
  type LadderOptions,
  type MarketConfig,
  type MarketPlan,
  type OrderBody,
  type PairSettings,
} from "./ladder.ts";
import type { Random } from "./random.ts";

// The market-making bot's rounds, over the public signed API only. Every tick each pair's mid
// takes a step of its random walk; the market maker re-quotes as many pairs as its key's rate
// limit allows (cancel its orders on the pair, post a fresh ladder), the pairs taking turns;
// then the taker sends one small crossing order per pair so deals happen. Failed calls are
// logged and the next tick goes on.

export interface BotOptions {
  readonly http: ExchangeHttp;
  readonly maker: Key;
  readonly taker: Key;
  readonly random: Random;
  readonly intervalMs: number;
  readonly markets?: Readonly<Record<string, MarketConfig>>;
  readonly ladder?: LadderOptions;
  readonly log?: (line: string) => void;
  readonly now?: () => number;
}

/** Share of the key's rate limit the market maker plans to use (the rest absorbs bursts). */
const RATE_LIMIT_SHARE = 0.85;
/** Assumed until the first signed answer reports RateLimit-Limit (the server's default). */
const DEFAULT_SIGNED_LIMIT = 1200;

interface MarketState {
  readonly plan: MarketPlan;
  mid: bigint;
  /** What the market maker last posted (minus what it knows was taken); the taker aims at it. */
  ladder: Ladder | undefined;
}

interface OrderAnswer {
  id: string;
  status: string;
  filledAmount: unknown;
  filledQuoteAmount: unknown;
}

export interface TickSummary {
  readonly tick: number;
  readonly quoted: string[];
  readonly trades: number;
  readonly errors: number;
}

export class MarketMakerBot {
  private readonly options: BotOptions;
  private readonly markets: MarketState[] = [];
  private readonly log: (line: string) => void;
  private readonly now: () => number;
  private tickCount = 0;
  private cursor = 0;
  private makerPausedUntil = 0;
  private takerPausedUntil = 0;
  private readonly errorCounts = new Map<string, number>();
  /** Pairs already reported as not quoted, so a reload does not log them again. */
  private readonly skipped = new Set<string>();
  /** Totals since start, for the periodic summary. */
  readonly totals = { ticks: 0, quotes: 0, takerOrders: 0, takerFills: 0, errors: 0 };

  constructor(options: BotOptions) {
    this.options = options;
    this.log = options.log ?? ((line) => console.log(line));
    this.now = options.now ?? Date.now;
  }

  /** "ETH_USDT 3001.25" for every pair: where the walks are. */
  mids(): string[] {
    return this.markets.map((market) => `${market.plan.code} ${formatUnits(market.mid, market.plan.digitsPrice)}`);
  }

  get pairs(): string[] {
    return this.markets.map((market) => market.plan.code);
  }

  /**
   * Reads the pairs' digits and minimums (GET /api/currencies/pairs, else the demo's) and plans
   * the configured ones. Called again while running: the demo's agent-token pairs are listed
   * after the bot may have started; a pair already quoted keeps its walk and ladder.
   */
  async loadPairs(): Promise<void> {
    const configs = this.options.markets ?? DEFAULT_MARKETS;
    let settings: PairSettings[];
    try {
      const rows =
        await this.options.http.get<
          { code: string; digitsPrice: unknown; digitsAmount: unknown; minQuoteAmount: unknown }[]
        >("/api/currencies/pairs");
      settings = rows.map((row) => ({
        code: row.code,
        digitsPrice: Number(decimalText(row.digitsPrice)),
        digitsAmount: Number(decimalText(row.digitsAmount)),
        minQuoteAmount: row.minQuoteAmount === null ? null : decimalText(row.minQuoteAmount),
      }));
    } catch (error) {
      if (!(error instanceof ApiCallError && error.status === 404)) throw error;
      this.log("bot: the exchange has no GET /api/currencies/pairs; using the demo pairs' settings");
      settings = [...DEFAULT_PAIR_SETTINGS];
    }
    const known = new Map(this.markets.map((market) => [market.plan.code, market]));
    const skip = (code: string, why: string) => {
      if (!this.skipped.has(code)) this.log(`bot: ${why}`);
      this.skipped.add(code);
    };
    const markets: MarketState[] = [];
    for (const pair of settings) {
      const kept = known.get(pair.code);
      if (kept !== undefined) {
        markets.push(kept);
        continue;
      }
      const config = configs[pair.code];
      if (config === undefined) {
        skip(pair.code, `no start price configured for ${pair.code}; not quoting it`);
        continue;
      }
      const plan = planMarket(pair, config);
      if (!plan.ok) {
        skip(pair.code, `skipping ${pair.code}: ${plan.message}`);
        continue;
      }
      markets.push({ plan: plan.value, mid: plan.value.startMid, ladder: undefined });
    }
    this.markets.splice(0, this.markets.length, ...markets);
  }

  /** One round: walk, re-quote some pairs, trade on every pair with a ladder. */
  async tick(): Promise<TickSummary> {
    const tick = ++this.tickCount;
    this.totals.ticks++;
    const quotes = 2 * (this.options.ladder ?? DEFAULT_LADDER).levels;
    const limit = Math.floor((this.options.http.signedLimit ?? DEFAULT_SIGNED_LIMIT) * RATE_LIMIT_SHARE);
    const count = pairsPerTick({
      pairs: this.markets.length,
      quotesPerPair: quotes,
      intervalMs: this.options.intervalMs,
      requestsPerMinute: limit,
    });
    const requote = new Set<MarketState>();
    for (let i = 0; i < count; i++) requote.add(this.markets[(this.cursor + i) % this.markets.length]);
    this.cursor = this.markets.length === 0 ? 0 : (this.cursor + count) % this.markets.length;

    const quoted: string[] = [];
    let trades = 0;
    let errors = 0;
    for (const market of this.markets) {
      market.mid = nextMid(market.plan, market.mid, this.options.random);
      if (requote.has(market) && this.now() >= this.makerPausedUntil) {
        const result = await this.requote(market);
        errors += result.errors;
        if (result.posted > 0) quoted.push(`${market.plan.code} ${formatUnits(market.mid, market.plan.digitsPrice)}`);
      }
      if (market.ladder !== undefined && this.now() >= this.takerPausedUntil) {
        const order = takerOrder(market.plan, market.ladder, this.options.random);
        if (order === null) continue;
        const result = await this.take(order);
        if (result === "error") errors++;
        else if (result) trades++;
      }
    }
    this.totals.errors += errors;
    return { tick, quoted, trades, errors };
  }

  private async requote(market: MarketState): Promise<{ posted: number; errors: number }> {
    const { http, maker } = this.options;
    const code = market.plan.code;
    try {
      await http.signed(maker, "DELETE", `/api/orders?currencyPairCode=${encodeURIComponent(code)}`);
    } catch (error) {
      this.failed("maker", `cancel ${code}`, error);
      // Posting a second ladder next to a stale one would double the maker's exposure.
      return { posted: 0, errors: 1 };
    }
    const ladder = buildLadder(market.plan, market.mid, this.options.ladder ?? DEFAULT_LADDER);
    market.ladder = undefined;
    // ladderOrders lists the bids, then the asks: quotes[i] is the quote behind orders[i].
    const quotes = [...ladder.bids, ...ladder.asks];
    const orders = ladderOrders(code, ladder);
    const results = await Promise.allSettled(
      orders.map((order) => http.signed<OrderAnswer>(maker, "POST", "/api/orders", order)),
    );
    let posted = 0;
    let errors = 0;
    const placed: Ladder = { bids: [], asks: [] };
    results.forEach((result, i) => {
      if (result.status === "rejected") {
        errors++;
        this.failed("maker", `quote ${describe(orders[i])}`, result.reason);
        return;
      }
      posted++;
      // An order that traded at once (against someone else's) may not rest: the taker skips it.
      if (result.value.status === "open") (quotes[i].isBid ? placed.bids : placed.asks).push(quotes[i]);
    });
    this.totals.quotes += posted;
    market.ladder = placed;
    return { posted, errors };
  }

  /** true when the taker's order traded, false when it did not, "error" when the call failed. */
  private async take(order: OrderBody): Promise<boolean | "error"> {
    this.totals.takerOrders++;
    try {
      const answer = await this.options.http.signed<OrderAnswer>(this.options.taker, "POST", "/api/orders", order);
      const filled = decimalText(answer.filledAmount);
      const traded = !/^0(\.0*)?$/.test(filled);
      if (traded) this.totals.takerFills++;
      return traded;
    } catch (error) {
      // An IOC that finds nothing is a normal outcome of a thin book, not a failure.
      if (error instanceof ApiCallError && (error.code === "NO_LIQUIDITY" || error.code === "UNFILLED")) return false;
      this.failed("taker", describe(order), error);
      return "error";
    }
  }

  /** Logs a failed call; repeats of one error code are logged at 1, 10, 100, ... occurrences. */
  private failed(who: "maker" | "taker", what: string, error: unknown): void {
    if (error instanceof ApiCallError && error.status === 429) {
      const until = this.now() + (error.retryAfterSeconds ?? 5) * 1000;
      if (who === "maker") this.makerPausedUntil = Math.max(this.makerPausedUntil, until);
      else this.takerPausedUntil = Math.max(this.takerPausedUntil, until);
    }
    const code = error instanceof ApiCallError ? error.code : ((error as Error)?.name ?? "Error");
    const key = `${who}:${code}`;
    const seen = (this.errorCounts.get(key) ?? 0) + 1;
    this.errorCounts.set(key, seen);
    if (Math.log10(seen) % 1 === 0) {
      const message = error instanceof Error ? error.message : String(error);
      this.log(`bot: ${who} ${what} failed: ${message}${seen > 1 ? ` (${seen} times so far)` : ""}`);
    }
  }

  /** Cancels every open order of the market maker (on stop). */
  async cancelAll(): Promise<number> {
    const answer = await this.options.http.signed<{ cancelled: unknown[] }>(
      this.options.maker,
      "DELETE",
      "/api/orders",
    );
    return answer.cancelled.length;
  }
}

function describe(order: OrderBody): string {
  const side = order.isBid ? "buy" : "sell";
  return `${side} ${order.amount} ${order.currencyPairCode} ${order.type === "market" ? "at market" : `at ${order.price}`} ${order.timeInForce}`;
}
