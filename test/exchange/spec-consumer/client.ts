/**
 * A browser-free consumer of the public market data ({base_url}) and the aggregator namespace
 * ({aggregator_url}), written from /work/shared/SPEC.md alone. It imports nothing of the exchange
 * (only node built-ins and zod), so it checks the server the way an outside client would read it.
 *
 * runConsumer() reads every public endpoint, validates each body against SPEC.md's tables and
 * returns every violation it finds (types, sort orders, invariants) instead of stopping at the
 * first, so one run reports everything at once.
 *
 * Numbers are read exactly: JSON.parse's reviver gets each number's source text (Node >= 22), so
 * "integer" means text without fraction or exponent, and invariants such as quoteAmount = price *
 * amount are checked with BigInt-scaled decimals. A float would round 0.61 * 8.5 and miss a bug.
 */
import { z } from "zod";
import { Num, ZERO, cmp, dec, fractionDigits, mul, parseExact, show, sum, type Dec } from "./decimal.ts";
import {
  DEAL_DATE,
  historicalTrades,
  schemas,
  type Level,
  type PairSetting,
  type Trade,
  type Tuple,
} from "./schemas.ts";

// ---------------------------------------------------------------------------------------------
// The consumer

export interface ConsumerOptions {
  readonly baseUrl: string;
  /** Default: baseUrl (same host). */
  readonly aggregatorUrl?: string;
  /**
   * Nothing trades while the consumer runs, so endpoints must agree with each other (ticker vs
   * deals vs book vs aggregator). Off for a live market, where SPEC.md allows them to lag.
   */
  readonly settledMarket?: boolean;
}

export interface ConsumerReport {
  readonly violations: string[];
  readonly requests: string[];
  /** What was looked at, so a caller can tell a clean run from an empty one. */
  readonly seen: {
    pairs: number;
    deals: number;
    bookLevels: number;
    candles: number;
    aggTickers: number;
    aggBookLevels: number;
    aggTrades: number;
  };
}

interface DealFact {
  readonly ms: number;
  /** Sortable: date and fraction padded to 9 digits. */
  readonly key: string;
  readonly price: Dec;
  readonly volume: Dec;
  readonly isBuy: boolean;
}

interface PairFacts {
  readonly setting: PairSetting;
  readonly deals: DealFact[];
  /** Every deal of the pair was read (fewer than MAX_DEAL_PAGES pages). */
  readonly complete: boolean;
  readonly bids: Level[];
  readonly asks: Level[];
  readonly ticker?: z.infer<typeof schemas.ticker>;
}

const INTERVAL_MS: Record<string, number | undefined> = {
  minute: 60_000,
  minutes3: 180_000,
  minutes5: 300_000,
  minutes15: 900_000,
  minutes30: 1_800_000,
  hour: 3_600_000,
  hour4: 14_400_000,
  day: 86_400_000,
  month: undefined,
  year: undefined,
};
const DAY_MS = 86_400_000;
const MAX_DEAL_PAGES = 20;
const AGG = "/api/marketdata/getaggregator";
const isoNoOffset = (ms: number) => new Date(ms).toISOString().slice(0, 19);
const firstBad = <T>(items: readonly T[], ok: (a: T, b: T) => boolean) =>
  items.findIndex((item, i) => i > 0 && !ok(items[i - 1], item));

export async function runConsumer(options: ConsumerOptions): Promise<ConsumerReport> {
  const consumer = new Consumer(options);
  await consumer.run();
  return { violations: consumer.violations, requests: consumer.requests, seen: consumer.seen };
}

/** Violations of one expected error answer: status, and a {code, message} body with that code. */
export async function checkError(url: string, status: number, code: string): Promise<string[]> {
  const res = await fetch(url);
  const text = await res.text();
  const where = `GET ${url.replace(/^https?:\/\/[^/]+/, "")}`;
  const problems: string[] = [];
  if (res.status !== status) problems.push(`${where}: status ${res.status}, expected ${status}: ${text.slice(0, 200)}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [...problems, `${where}: error body is not JSON: ${text.slice(0, 200)}`];
  }
  const parsed = schemas.error.safeParse(body);
  if (!parsed.success) problems.push(`${where}: error body is not {code, message}: ${text.slice(0, 200)}`);
  else if (parsed.data.code !== code) problems.push(`${where}: code ${parsed.data.code}, expected ${code}`);
  return problems;
}

class Consumer {
  readonly violations: string[] = [];
  readonly requests: string[] = [];
  readonly seen = { pairs: 0, deals: 0, bookLevels: 0, candles: 0, aggTickers: 0, aggBookLevels: 0, aggTrades: 0 };
  private readonly base: string;
  private readonly agg: string;
  private readonly settled: boolean;
  private readonly now = Date.now();

  constructor(options: ConsumerOptions) {
    this.base = options.baseUrl.replace(/\/$/, "");
    this.agg = (options.aggregatorUrl ?? options.baseUrl).replace(/\/$/, "") + AGG;
    this.settled = options.settledMarket ?? false;
  }

  private check(ok: boolean, where: string, message: string): boolean {
    if (!ok) this.violations.push(`${where}: ${message}`);
    return ok;
  }

  /** GET, 200, JSON, schema; undefined (and a violation) otherwise. */
  private async get<S extends z.ZodType>(url: string, schema: S): Promise<z.infer<S> | undefined> {
    const where = `GET ${url.replace(/^https?:\/\/[^/]+/, "")}`;
    this.requests.push(where);
    const res = await fetch(url);
    const text = await res.text();
    if (!this.check(res.status === 200, where, `status ${res.status}: ${text.slice(0, 200)}`)) return undefined;
    let data: unknown;
    try {
      data = parseExact(text);
    } catch {
      this.check(false, where, `not JSON: ${text.slice(0, 200)}`);
      return undefined;
    }
    const parsed = schema.safeParse(data);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues.slice(0, 5))
      this.check(false, where, `${issue.path.join(".") || "(body)"}: ${issue.message}`);
    return undefined;
  }

  /** A price or amount has at most `digits` significant fractional digits (SPEC.md "digitsPrice/digitsAmount"). */
  private digits(where: string, what: string, value: Num, digits: Num): void {
    const places = fractionDigits(dec(value));
    this.check(
      places <= Number(digits.text),
      where,
      `${what} ${value.text} has ${places} fractional digits, more than ${digits.text}`,
    );
  }

  async run(): Promise<void> {
    await this.get(`${this.base}/api/healthcheck`, schemas.healthcheck);
    const currencies = await this.get(`${this.base}/api/currencies`, schemas.currencies);
    const settings = (await this.get(`${this.base}/api/currencies/pairs`, z.array(schemas.pairSetting))) ?? [];
    await this.commissions();
    const pairs: PairFacts[] = [];
    for (const setting of settings) pairs.push(await this.pair(setting));
    this.seen.pairs = pairs.length;
    await this.aggTickers(pairs);
    await this.aggAssets(currencies);
    for (const pair of pairs) {
      await this.aggOrderbook(pair);
      await this.aggTrades(pair);
    }
  }

  private async commissions(): Promise<void> {
    const where = "GET /api/currencies/commissions";
    for (const c of (await this.get(`${this.base}/api/currencies/commissions`, z.array(schemas.commission))) ?? []) {
      const id = `commission ${c.commissionId}`;
      this.check(
        c.commissionType.code === c.commissionTypeCode,
        where,
        `${id}: commissionType.code ${c.commissionType.code} != commissionTypeCode ${c.commissionTypeCode}`,
      );
      if (c.commissionTypeCode === "1")
        this.check(
          c.commissionType.valueKey === "Refill",
          where,
          `${id}: type "1" has valueKey ${c.commissionType.valueKey}, SPEC: Refill`,
        );
      this.check(
        cmp(dec(c.percent), ZERO) >= 0 && cmp(dec(c.minimum), ZERO) >= 0,
        where,
        `${id}: negative percent or minimum`,
      );
      if (c.hashCode !== undefined) {
        const parts = c.hashCode.split("_");
        const ok =
          parts.length === 3 &&
          parts[0] === c.commissionTypeCode &&
          (c.currencyCode == null || parts[1] === c.currencyCode);
        this.check(ok, where, `${id}: hashCode ${c.hashCode} is not <commissionTypeCode>_<currencyCode>_<adapterCode>`);
      }
    }
  }

  // --- {base_url}, per pair ---------------------------------------------------------------------

  private async pair(setting: PairSetting): Promise<PairFacts> {
    const code = setting.code;
    const q = `currencyPairCode=${encodeURIComponent(code)}`;
    const { deals, complete } = await this.deals(setting, q);
    const book = (await this.get(`${this.base}/api/orderbook?${q}`, z.array(schemas.level))) ?? [];
    const { bids, asks } = this.orderbook(setting, book);
    const ticker = await this.get(`${this.base}/api/tickers?${q}`, schemas.ticker);
    const facts: PairFacts = { setting, deals, complete, bids, asks, ...(ticker ? { ticker } : {}) };
    if (ticker) this.ticker(facts, ticker);
    await this.candles(facts, q);
    return facts;
  }

  private async deals(setting: PairSetting, q: string): Promise<{ deals: DealFact[]; complete: boolean }> {
    const where = `GET /api/deals?${q}`;
    const facts: DealFact[] = [];
    const ids = new Set<string>();
    let complete = false;
    for (let page = 1; page <= MAX_DEAL_PAGES; page++) {
      const rows = await this.get(`${this.base}/api/deals?${q}&pageSize=100&pageNumber=${page}`, z.array(schemas.deal));
      if (rows === undefined) break;
      this.check(rows.length <= 100, where, `${rows.length} deals in one page, SPEC: at most 100`);
      for (const d of rows) {
        const m = DEAL_DATE.exec(d.dealDateUtc)!;
        const ms = Date.parse(`${m[1]}.${m[2].slice(0, 3)}Z`);
        this.check(
          Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 19) === m[1],
          where,
          `dealDateUtc ${d.dealDateUtc} is not a real instant`,
        );
        this.check(
          d.currencyPairCode === setting.code,
          where,
          `deal ${d.id} has currencyPairCode ${d.currencyPairCode}`,
        );
        this.check(
          d.isUserBuyer === null,
          where,
          `deal ${d.id}: isUserBuyer ${d.isUserBuyer} on a public call, SPEC: null`,
        );
        this.check(!ids.has(d.id), where, `deal id ${d.id} appears twice`);
        this.check(
          cmp(dec(d.price), ZERO) > 0 && cmp(dec(d.volume), ZERO) > 0,
          where,
          `deal ${d.id}: price and volume must be positive`,
        );
        this.digits(where, `deal ${d.id} price`, d.price, setting.digitsPrice);
        this.digits(where, `deal ${d.id} volume`, d.volume, setting.digitsAmount);
        ids.add(d.id);
        facts.push({
          ms,
          key: `${m[1]}.${m[2].padEnd(9, "0")}`,
          price: dec(d.price),
          volume: dec(d.volume),
          isBuy: d.isBuy,
        });
      }
      if (rows.length < 100) {
        complete = true;
        break;
      }
    }
    const bad = firstBad(facts, (a, b) => a.key >= b.key);
    this.check(bad < 0, where, `not sorted by dealDateUtc descending at #${bad}`);
    if (this.settled) {
      const byDefault = await this.get(`${this.base}/api/deals?${q}`, z.array(schemas.deal));
      this.check(
        byDefault === undefined || byDefault.length === Math.min(100, facts.length),
        where,
        `default page has ${byDefault?.length} deals, SPEC: default pageSize 100`,
      );
    }
    this.seen.deals += facts.length;
    return { deals: facts, complete };
  }

  /** Flat array: bids best (highest) first, then asks best (lowest) first; 40 a side at most. */
  private orderbook(setting: PairSetting, levels: Level[]): { bids: Level[]; asks: Level[] } {
    const where = `GET /api/orderbook?currencyPairCode=${setting.code}`;
    const firstAsk = levels.findIndex((l) => !l.isBid);
    const bids = firstAsk < 0 ? levels : levels.slice(0, firstAsk);
    const asks = firstAsk < 0 ? [] : levels.slice(firstAsk);
    this.check(
      asks.every((l) => !l.isBid),
      where,
      "a bid level comes after an ask level (SPEC shape: bids, then asks)",
    );
    this.check(
      bids.length <= 40 && asks.length <= 40,
      where,
      `${bids.length} bid and ${asks.length} ask levels, SPEC: up to 40 a side`,
    );
    const bad = firstBad(bids, (a, b) => cmp(dec(a.price), dec(b.price)) > 0);
    this.check(bad < 0, where, `bids not strictly descending (best first) at #${bad}`);
    const badAsk = firstBad(asks, (a, b) => cmp(dec(a.price), dec(b.price)) < 0);
    this.check(badAsk < 0, where, `asks not strictly ascending (best first) at #${badAsk}`);
    if (bids.length > 0 && asks.length > 0)
      this.check(cmp(dec(bids[0].price), dec(asks[0].price)) < 0, where, "crossed book: best bid >= best ask");
    for (const l of levels) {
      const at = `level ${l.isBid ? "bid" : "ask"} ${l.price.text}`;
      const product = mul(dec(l.price), dec(l.amount));
      this.check(
        cmp(dec(l.quoteAmount), product) === 0,
        where,
        `${at}: quoteAmount ${l.quoteAmount.text} != price * amount = ${show(product)}`,
      );
      this.check(
        cmp(dec(l.currencyTo), dec(l.amount)) === 0,
        where,
        `${at}: currencyTo ${l.currencyTo.text} != amount ${l.amount.text}`,
      );
      this.check(
        cmp(dec(l.currencyFrom), dec(l.quoteAmount)) === 0,
        where,
        `${at}: currencyFrom ${l.currencyFrom.text} != quoteAmount ${l.quoteAmount.text}`,
      );
      this.check(cmp(dec(l.amount), ZERO) > 0, where, `${at}: amount ${l.amount.text} is not positive`);
      this.digits(where, `${at} price`, l.price, setting.digitsPrice);
      this.digits(where, `${at} amount`, l.amount, setting.digitsAmount);
    }
    this.seen.bookLevels += levels.length;
    return { bids, asks };
  }

  private ticker(pair: PairFacts, t: z.infer<typeof schemas.ticker>): void {
    const where = `GET /api/tickers?currencyPairCode=${pair.setting.code}`;
    const seconds = Number(t.timestamp.text);
    this.check(
      Math.abs(seconds - this.now / 1000) < DAY_MS / 1000,
      where,
      `timestamp ${t.timestamp.text} is not Unix seconds near now`,
    );
    this.check(
      t.currencyPairCode === pair.setting.code,
      where,
      `currencyPairCode ${t.currencyPairCode} is not the pair asked for`,
    );
    const [price, before] = [Number(t.price.text), Number(t.price24hAgo.text)];
    if (before !== 0) {
      const change = ((price - before) / before) * 100;
      this.check(
        Math.abs(change - Number(t.priceChangePercentage24h.text)) < 0.01,
        where,
        `priceChangePercentage24h ${t.priceChangePercentage24h.text}, price/price24hAgo gives ${change}`,
      );
    }
    if (!this.settled) return;
    const [bestBid, bestAsk] = [pair.bids[0], pair.asks[0]];
    if (bestBid)
      this.check(
        cmp(dec(t.bidPrice), dec(bestBid.price)) === 0,
        where,
        `bidPrice ${t.bidPrice.text} != best bid ${bestBid.price.text} of /api/orderbook`,
      );
    if (bestAsk)
      this.check(
        cmp(dec(t.askPrice), dec(bestAsk.price)) === 0,
        where,
        `askPrice ${t.askPrice.text} != best ask ${bestAsk.price.text} of /api/orderbook`,
      );
    if (pair.deals.length > 0) {
      const newest = pair.deals.filter((d) => d.key === pair.deals[0].key);
      this.check(
        newest.some((d) => cmp(d.price, dec(t.price)) === 0),
        where,
        `price ${t.price.text} is not the last deal's price`,
      );
    }
    const window = this.last24h(pair);
    if (window)
      this.check(
        cmp(dec(t.volume24h), sum(window.map((d) => d.volume))) === 0,
        where,
        `volume24h ${t.volume24h.text} != sum of the last 24 h deals ${show(sum(window.map((d) => d.volume)))}`,
      );
  }

  /** The deals of the last 24 hours, when that set is unambiguous (complete, none within a minute of the edge). */
  private last24h(pair: PairFacts): DealFact[] | undefined {
    const edge = this.now - DAY_MS;
    if (!pair.complete || pair.deals.some((d) => Math.abs(d.ms - edge) < 60_000)) return undefined;
    return pair.deals.filter((d) => d.ms > edge);
  }

  private async candles(pair: PairFacts, q: string): Promise<void> {
    const { deals } = pair;
    // A range holding every deal when they are all recent (within the 5000-minute-candles calls SPEC's splitting advice implies), else the last day.
    const oldest = deals.at(-1)?.ms ?? this.now;
    const start =
      pair.complete && oldest > this.now - 3 * DAY_MS
        ? Math.min(oldest - 60_000, this.now - DAY_MS)
        : this.now - DAY_MS;
    const end = this.now + 60_000;
    const holdsAll = pair.complete && deals.every((d) => d.ms >= start && d.ms <= end);
    for (const [interval, length] of Object.entries(INTERVAL_MS)) {
      const path = `/api/ohlc?${q}&interval=${interval}&start=${isoNoOffset(start)}&end=${isoNoOffset(end)}`;
      const where = `GET ${path}`;
      const candles = await this.get(`${this.base}${path}`, z.array(schemas.candle));
      if (candles === undefined) continue;
      this.seen.candles += candles.length;
      const times = candles.map((c) => Date.parse(`${c.date}Z`));
      this.check(times.every(Number.isFinite), where, "a date is not a real instant");
      const bad = firstBad(times, (a, b) => a < b);
      this.check(bad < 0, where, `not sorted by date ascending at #${bad}`);
      // Dates are approximate (within a few seconds of a boundary): consecutive fixed-length candles are about an interval apart.
      if (length !== undefined)
        this.check(
          firstBad(times, (a, b) => b - a >= length - 10_000) < 0,
          where,
          `two candles closer than one ${interval}`,
        );
      for (const c of candles) {
        const [open, max, min, close, volume, base] = [c.open, c.max, c.min, c.close, c.volume, c.volumeBase].map((n) =>
          dec(n),
        );
        const at = `candle ${c.date}`;
        this.check(
          cmp(min, open) <= 0 && cmp(min, close) <= 0 && cmp(open, max) <= 0 && cmp(close, max) <= 0,
          where,
          `${at}: open/close outside [min, max]`,
        );
        this.check(
          cmp(mul(min, base), volume) <= 0 && cmp(volume, mul(max, base)) <= 0,
          where,
          `${at}: volume ${c.volume.text} outside [min, max] * volumeBase`,
        );
        this.digits(where, `${at} volumeBase`, c.volumeBase, pair.setting.digitsAmount);
        for (const p of [c.open, c.max, c.min, c.close]) this.digits(where, `${at} price`, p, pair.setting.digitsPrice);
      }
      if (!holdsAll || !this.settled) continue;
      // Every deal lies in the range: the candles must add up to the deals exactly.
      const totalBase = sum(deals.map((d) => d.volume));
      const totalQuote = sum(deals.map((d) => mul(d.price, d.volume)));
      this.check(
        cmp(sum(candles.map((c) => dec(c.volumeBase))), totalBase) === 0,
        where,
        `sum of volumeBase != sum of deal volumes ${show(totalBase)}`,
      );
      this.check(
        cmp(sum(candles.map((c) => dec(c.volume))), totalQuote) === 0,
        where,
        `sum of volume != sum of price * volume ${show(totalQuote)}`,
      );
      if (deals.length === 0) {
        this.check(candles.length === 0, where, "candles without deals");
        continue;
      }
      const [first, last] = [candles[0], candles.at(-1)!];
      const oldestDeals = deals.filter((d) => d.key === deals.at(-1)!.key);
      const newestDeals = deals.filter((d) => d.key === deals[0].key);
      this.check(
        oldestDeals.some((d) => cmp(d.price, dec(first.open)) === 0),
        where,
        `first open ${first.open.text} is not the first deal's price`,
      );
      this.check(
        newestDeals.some((d) => cmp(d.price, dec(last.close)) === 0),
        where,
        `last close ${last.close.text} is not the last deal's price`,
      );
      const prices = deals.map((d) => d.price).sort(cmp);
      this.check(
        candles.some((c) => cmp(dec(c.max), prices.at(-1)!) === 0),
        where,
        `no candle max equals the highest deal price ${show(prices.at(-1)!)}`,
      );
      this.check(
        candles.some((c) => cmp(dec(c.min), prices[0]) === 0),
        where,
        `no candle min equals the lowest deal price ${show(prices[0])}`,
      );
    }
  }

  // --- {aggregator_url} -------------------------------------------------------------------------

  private async aggTickers(pairs: PairFacts[]): Promise<void> {
    const where = `GET ${AGG}/tickers`;
    const tickers = (await this.get(`${this.agg}/tickers`, z.array(schemas.aggTicker))) ?? [];
    this.seen.aggTickers = tickers.length;
    const bad = firstBad(tickers, (a, b) => a.ticker_id < b.ticker_id);
    this.check(bad < 0, where, `not sorted by ticker_id at #${bad}`);
    const byCode = new Map(pairs.map((p) => [p.setting.code, p]));
    for (const t of tickers) {
      const at = `ticker ${t.ticker_id}`;
      this.check(
        t.ticker_id === `${t.base_currency}_${t.target_currency}`,
        where,
        `${at}: ticker_id is not <base_currency>_<target_currency>`,
      );
      this.check(cmp(dec(t.base_volume), ZERO) > 0, where, `${at}: zero 24h volume, SPEC: such pairs are excluded`);
      this.check(t.bid != null || t.ask != null, where, `${at}: empty book, SPEC: such pairs are excluded`);
      const [last, high, low] = [dec(t.last_price), t.high ? dec(t.high) : undefined, t.low ? dec(t.low) : undefined];
      if (high && low) {
        this.check(cmp(low, last) <= 0 && cmp(last, high) <= 0, where, `${at}: last_price outside [low, high]`);
        const [base, target] = [dec(t.base_volume), dec(t.target_volume)];
        this.check(
          cmp(mul(low, base), target) <= 0 && cmp(target, mul(high, base)) <= 0,
          where,
          `${at}: target_volume outside [low, high] * base_volume`,
        );
      }
      if (t.bid && t.ask) this.check(cmp(dec(t.bid), dec(t.ask)) < 0, where, `${at}: bid >= ask`);
      const pair = byCode.get(t.ticker_id);
      if (!this.check(pair !== undefined, where, `${at}: not an active pair of /api/currencies/pairs`) || !this.settled)
        continue;
      const window = this.last24h(pair!);
      if (pair!.ticker)
        this.check(
          cmp(last, dec(pair!.ticker.price)) === 0,
          where,
          `${at}: last_price != /api/tickers price ${pair!.ticker.price.text}`,
        );
      if (pair!.bids[0])
        this.check(
          t.bid != null && cmp(dec(t.bid), dec(pair!.bids[0].price)) === 0,
          where,
          `${at}: bid != best bid of /api/orderbook`,
        );
      if (pair!.asks[0])
        this.check(
          t.ask != null && cmp(dec(t.ask), dec(pair!.asks[0].price)) === 0,
          where,
          `${at}: ask != best ask of /api/orderbook`,
        );
      if (window && window.length > 0) {
        const quote = sum(window.map((d) => mul(d.price, d.volume)));
        this.check(
          cmp(dec(t.base_volume), sum(window.map((d) => d.volume))) === 0,
          where,
          `${at}: base_volume != the last 24 h deals`,
        );
        this.check(
          cmp(dec(t.target_volume), quote) === 0,
          where,
          `${at}: target_volume ${t.target_volume.text} != sum of price * volume ${show(quote)}`,
        );
        const prices = window.map((d) => d.price).sort(cmp);
        this.check(
          high !== undefined && cmp(high, prices.at(-1)!) === 0,
          where,
          `${at}: high != highest 24 h deal price`,
        );
        this.check(low !== undefined && cmp(low, prices[0]) === 0, where, `${at}: low != lowest 24 h deal price`);
      }
    }
    if (!this.settled) return;
    // The other side of the rule: a pair with 24 h deals and a book must be listed.
    for (const pair of pairs) {
      const window = this.last24h(pair);
      const listed = tickers.some((t) => t.ticker_id === pair.setting.code);
      if (window && window.length > 0 && pair.bids.length + pair.asks.length > 0)
        this.check(listed, where, `${pair.setting.code} has 24 h deals and a book but is not listed`);
    }
  }

  private async aggAssets(currencies: unknown[] | undefined): Promise<void> {
    const where = `GET ${AGG}/asset`;
    const assets = await this.get(`${this.agg}/asset`, z.record(z.string(), schemas.aggAsset));
    if (assets === undefined) return;
    for (const [symbol, a] of Object.entries(assets)) {
      if (a.min_withdraw != null && a.max_withdraw != null)
        this.check(cmp(dec(a.min_withdraw), dec(a.max_withdraw)) <= 0, where, `${symbol}: min_withdraw > max_withdraw`);
      for (const fee of [a.maker_fee, a.taker_fee])
        if (fee != null)
          this.check(
            cmp(dec(fee), ZERO) >= 0 && cmp(dec(fee), dec("1")) < 0,
            where,
            `${symbol}: fee ${fee.text} is not a fraction`,
          );
    }
    // When /api/currencies is a list of codes, the asset map is keyed by the same symbols.
    if (currencies?.every((c) => typeof c === "string")) {
      this.check(
        [...currencies].sort().join() === Object.keys(assets).sort().join(),
        where,
        `asset keys ${Object.keys(assets)} != /api/currencies ${currencies}`,
      );
    }
  }

  private async aggOrderbook(pair: PairFacts): Promise<void> {
    const code = pair.setting.code;
    const books = new Map<string, { bids: Tuple[]; asks: Tuple[] }>();
    for (const depth of ["", "0", "100", "200", "500"]) {
      const path = `${AGG}/orderbook?ticker_id=${encodeURIComponent(code)}${depth === "" ? "" : `&depth=${depth}`}`;
      const where = `GET ${path}`;
      const book = await this.get(`${this.agg}${path.slice(AGG.length)}`, schemas.aggOrderbook);
      if (book === undefined) continue;
      books.set(depth, book);
      this.seen.aggBookLevels += book.bids.length + book.asks.length;
      const others = Object.entries(book).filter(([key]) => key !== "bids" && key !== "asks");
      this.check(
        others.some(([, v]) => v === code),
        where,
        "no field echoes the ticker_id",
      );
      const isMs = (v: unknown) =>
        v instanceof Num && /^\d+$/.test(v.text) && Math.abs(Number(v.text) - this.now) < DAY_MS;
      this.check(
        others.some(([, v]) => isMs(v)),
        where,
        "no last-update time in Unix epoch milliseconds",
      );
      const bad = firstBad(book.bids, (a, b) => cmp(dec(a[0]), dec(b[0])) > 0);
      this.check(bad < 0, where, `bids not sorted by price descending at #${bad}`);
      const badAsk = firstBad(book.asks, (a, b) => cmp(dec(a[0]), dec(b[0])) < 0);
      this.check(badAsk < 0, where, `asks not sorted by price ascending at #${badAsk}`);
      this.check(
        [...book.bids, ...book.asks].every(([, q]) => cmp(dec(q), ZERO) > 0),
        where,
        "a quantity is not positive",
      );
      if (book.bids[0] && book.asks[0])
        this.check(cmp(dec(book.bids[0][0]), dec(book.asks[0][0])) < 0, where, "crossed book");
      const perSide = Number(depth || "100") / 2; // the default is not shown; every allowed value bounds it
      if (depth !== "0" && depth !== "")
        this.check(
          book.bids.length <= perSide && book.asks.length <= perSide,
          where,
          `more than ${perSide} levels a side`,
        );
    }
    const full = books.get("0");
    if (full === undefined) return;
    const same = (a: Tuple[], b: Tuple[]) =>
      a.length === b.length &&
      a.every((x, i) => cmp(dec(x[0]), dec(b[i][0])) === 0 && cmp(dec(x[1]), dec(b[i][1])) === 0);
    for (const depth of ["100", "200", "500"]) {
      const book = books.get(depth);
      const n = Number(depth) / 2;
      const ok = book !== undefined && same(book.bids, full.bids.slice(0, n)) && same(book.asks, full.asks.slice(0, n));
      this.check(
        ok,
        `GET ${AGG}/orderbook?ticker_id=${code}&depth=${depth}`,
        `not the best ${n} levels a side of depth=0`,
      );
    }
    if (!this.settled) return;
    const levels = (side: Level[]) => side.map((l): Tuple => [l.price, l.amount]);
    const matches = same(levels(pair.bids), full.bids.slice(0, 40)) && same(levels(pair.asks), full.asks.slice(0, 40));
    this.check(matches, `GET ${AGG}/orderbook?ticker_id=${code}&depth=0`, "top 40 levels differ from /api/orderbook");
  }

  private async aggTrades(pair: PairFacts): Promise<void> {
    const code = pair.setting.code;
    const fetchTrades = async (query: string) => {
      const path = `${AGG}/historical_trades?ticker_id=${encodeURIComponent(code)}${query}`;
      const body = await this.get(`${this.agg}${path.slice(AGG.length)}`, historicalTrades);
      return body === undefined ? undefined : { where: `GET ${path}`, buy: body.buy, sell: body.sell };
    };
    const all = await fetchTrades("&limit=0");
    for (const query of ["", "&limit=100", "&limit=0", "&type=buy", "&type=sell"]) {
      const res = query === "&limit=0" ? all : await fetchTrades(query);
      if (res === undefined) continue;
      const { where } = res;
      const only = /type=(buy|sell)/.exec(query)?.[1];
      for (const side of ["buy", "sell"] as const) {
        const trades = res[side];
        if (only !== undefined && only !== side) {
          this.check(trades === undefined || trades.length === 0, where, `${side} is populated although type=${only}`);
          continue;
        }
        if (!this.check(trades !== undefined, where, `no ${side} array`)) continue;
        this.tradeSide(where, side, trades!, pair);
        if (query !== "&limit=0")
          this.check(trades!.length <= 100, where, `${trades!.length} ${side} trades, more than the limit of 100`);
      }
    }
    if (all === undefined) return;
    const merged = [...(all.buy ?? []), ...(all.sell ?? [])].sort(
      (a, b) => Number(a.trade_id.text) - Number(b.trade_id.text),
    );
    this.seen.aggTrades += merged.length;
    const where = all.where;
    const badId = firstBad(
      merged,
      (a, b) => a.trade_id.text !== b.trade_id.text && Number(a.trade_timestamp.text) <= Number(b.trade_timestamp.text),
    );
    this.check(
      badId < 0,
      where,
      `trade_id not strictly increasing in time order at trade_id ${merged[badId]?.trade_id.text}`,
    );
    if (merged.length > 0) await this.tradeWindow(code, merged[Math.floor(merged.length / 2)]);
    if (!this.settled || !pair.complete) return;
    // Same trades as /api/deals: (ms, price, volume, side) multisets agree.
    const fromDeals = pair.deals
      .map((d) => `${d.ms} ${show(d.price)} x ${show(d.volume)} ${d.isBuy ? "buy" : "sell"}`)
      .sort();
    const fromAgg = merged
      .map((t) => `${t.trade_timestamp.text} ${show(dec(t.price))} x ${show(dec(t.base_volume))} ${t.type}`)
      .sort();
    this.check(
      fromDeals.length === fromAgg.length,
      where,
      `${fromAgg.length} trades with limit=0, /api/deals has ${fromDeals.length}`,
    );
    this.check(
      fromDeals.join() === fromAgg.join(),
      where,
      "the trades differ from /api/deals (time, price, volume or side)",
    );
  }

  private tradeSide(where: string, side: "buy" | "sell", trades: Trade[], pair: PairFacts): void {
    const bad = firstBad(trades, (a, b) => Number(a.trade_timestamp.text) >= Number(b.trade_timestamp.text));
    this.check(bad < 0, where, `${side} not sorted by trade_timestamp descending at #${bad}`);
    for (const t of trades) {
      const at = `${side} trade ${t.trade_id.text}`;
      this.check(t.type === side, where, `${at}: type ${t.type} in the ${side} array`);
      this.check(
        Math.abs(Number(t.trade_timestamp.text) - this.now) < 365 * DAY_MS,
        where,
        `${at}: trade_timestamp ${t.trade_timestamp.text} is not epoch ms`,
      );
      this.digits(where, `${at} price`, t.price, pair.setting.digitsPrice);
      this.digits(where, `${at} base_volume`, t.base_volume, pair.setting.digitsAmount);
      // The target-size field's name is not shown in SPEC.md: some other number must equal price * base_volume.
      const product = mul(dec(t.price), dec(t.base_volume));
      const known = new Set(["trade_id", "price", "base_volume", "trade_timestamp", "type"]);
      const candidates = Object.entries(t).filter(([key, v]) => !known.has(key) && v instanceof Num);
      this.check(
        candidates.some(([, v]) => cmp(dec(v as Num), product) === 0),
        where,
        `${at}: no target-size field equal to price * base_volume = ${show(product)}`,
      );
    }
  }

  /** start_time and end_time are inclusive bounds on trade_timestamp. */
  private async tradeWindow(code: string, probe: Trade): Promise<void> {
    const t = probe.trade_timestamp.text;
    const path = `${AGG}/historical_trades?ticker_id=${encodeURIComponent(code)}&limit=0&start_time=${t}&end_time=${t}`;
    const body = await this.get(`${this.agg}${path.slice(AGG.length)}`, historicalTrades);
    if (body === undefined) return;
    const trades = [...(body.buy ?? []), ...(body.sell ?? [])];
    this.check(
      trades.every((x) => x.trade_timestamp.text === t),
      `GET ${path}`,
      "a trade outside [start_time, end_time]",
    );
    this.check(
      trades.some((x) => x.trade_id.text === probe.trade_id.text),
      `GET ${path}`,
      `trade ${probe.trade_id.text} at exactly start_time = end_time is missing`,
    );
  }
}
