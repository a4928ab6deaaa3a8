import type { Exchange, Pair } from "../../application/index.ts";
import type { MarketData } from "../marketdata/market-data.ts";
import { DAY_US } from "../marketdata/rolling-window.ts";
import { tickerView } from "../marketdata/ticker.ts";
import type { Envelope } from "./market-feed.ts";
import { ALL_TICKERS } from "./protocol.ts";

/**
 * The `@ticker` streams: at most once a second, each pair whose ticker changed (its price,
 * volume, book top or 24-hour window; the timestamp alone is no change) on `<PAIR>@ticker`, and
 * all of those together on `!ticker@arr`.
 *
 * A ticker is rebuilt only when something it is made of may have changed since it was last
 * built: the pair's committed book (its version), its deals (their version), or the 24-hour
 * window, whose oldest trade leaves it at a time known in advance. A quiet pair costs three
 * lookups a tick, not a ticker built, formatted and serialised to be compared.
 */
export class TickerFeed {
  private readonly exchange: Exchange;
  private readonly marketData: MarketData;
  private readonly last = new Map<string, Built>();
  private builds = 0;

  constructor(exchange: Exchange, marketData: MarketData) {
    this.exchange = exchange;
    this.marketData = marketData;
  }

  /** Tickers built since the start (tests and metrics). */
  get built(): number {
    return this.builds;
  }

  /** The envelopes of one tick: `wanted(stream)` says whether anyone listens to a stream. */
  tick(wanted: (stream: string) => boolean, nowMs: number): Envelope[] {
    const all = wanted(ALL_TICKERS);
    const changed: unknown[] = [];
    const out: Envelope[] = [];
    const nowUs = this.marketData.now();
    for (const pair of this.exchange.reference.pairs.values()) {
      if (!pair.row.active) continue;
      const code = pair.row.code;
      const stream = `${code}@ticker`;
      if (!all && !wanted(stream)) continue;
      const book = this.exchange.bookVersion(code);
      const deals = this.marketData.dealsVersion(code);
      const last = this.last.get(code);
      if (last?.pair === pair && last.book === book && last.deals === deals && nowUs < last.staleAtUs) continue;
      this.builds++;
      const snapshot = this.marketData.snapshot(pair);
      const { timestamp, ...fields } = tickerView(this.marketData, pair, undefined, snapshot);
      const key = JSON.stringify(fields);
      const first = snapshot.stats.first;
      this.last.set(code, { pair, book, deals, staleAtUs: first === null ? Infinity : first.timeUs + DAY_US, key });
      if (last?.key === key) continue;
      const data = { e: "ticker", E: nowMs, timestamp, ...fields };
      if (wanted(stream)) out.push({ stream, data });
      changed.push(data);
    }
    if (all && changed.length > 0) out.push({ stream: ALL_TICKERS, data: changed });
    return out;
  }
}

/** What a pair's last ticker was built from, and its fields as compared. */
interface Built {
  /** The reference data it was built with (a pair whose spec changes is a new object). */
  readonly pair: Pair;
  readonly book: number;
  readonly deals: number;
  /** When the window's oldest trade leaves it (volume and the 24 h price may change then). */
  readonly staleAtUs: number;
  readonly key: string;
}
